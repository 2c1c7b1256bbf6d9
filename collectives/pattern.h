/* The validation pattern: what rank r puts in element j of its send buffer, chosen so that the exact result of
 * every collective is known in advance whatever order the reduction is done in (ring, tree, pairwise).
 * Compiled both as C (host backend, unit tests) and as CUDA (fill/verify kernels), hence NVS_HD.
 *
 * All values are small integers, exact in every type:
 *   sum:  values in [-M, M] with M*nranks <= the type's exact-integer limit (bfloat16: 256, half: 2048; see
 *         dtype.c), so every partial sum is exact. When even M = 1 does not fit (bfloat16 beyond 256 ranks),
 *         only one rank per element holds a non-zero value ("sparse").
 *   max/min: any integer in [-32, 31].
 *   prod: +-1 everywhere except one rank per element that may hold +-2, so |product| <= 2.
 *   avg:  integer types: every rank holds the same value v in [-M, M] (M as for sum), so the sum is n*v and the
 *         average v exactly, whether the division truncates or floors (NCCL sums then divides integers). Floating
 *         types: one rank per element holds +-1 or +-2, the others 0, so the result is v * round(1/n) exactly
 *         (avg_unit): NCCL multiplies each input by 1/n held in the type, then sums (zeros add nothing, and a
 *         power of two times the scalar is exact), and sum-then-divide rounds v/n to the same value.
 *   unsigned integer types: the sum values are shifted to [0, 2M] (sparse: [0, 6]), max/min to [0, 63], prod
 *         and avg use no negative value, so nothing wraps; dtype.c halves their exact bound to keep 2M*n in
 *         range. E.g. int8 at 64 ranks: M = 1 (1*64 <= 127), every partial sum within [-64, 64]; uint8: values
 *         in [0, 2], sums <= 128 <= 255; beyond 127 ranks both go sparse (one non-zero value, at most 6).
 * Element positions and ranks both enter the hash, so a block delivered to the wrong place or from the wrong
 * rank is caught (for the dense patterns; the sparse one trades that for exactness). */
#ifndef NVS_PATTERN_H
#define NVS_PATTERN_H

#include <stdint.h>

#ifdef __CUDACC__
#define NVS_HD __host__ __device__ __forceinline__
#else
#define NVS_HD static inline
#endif

typedef struct {
    int op;       /* nvs_redop (SUM=0, MAX, MIN, PROD, AVG) */
    int nranks;
    int magnitude; /* M of the sum pattern; 0 selects the sparse pattern */
    uint32_t seed; /* differs between configurations so stale data from the previous one cannot pass */
    int is_int, is_unsigned; /* the element type's kind (core/dtype.h), for the avg and unsigned patterns */
    double avg_unit;         /* floating avg: 1/nranks rounded to the element type (nvs_dtype_round) */
} nvs_pattern;

NVS_HD uint32_t nvs_pattern_hash(uint64_t j, int rank, uint32_t seed)
{
    /* splitmix-style mixing of (index, rank, seed); any good 32-bit mixer would do. */
    uint64_t x = j * 0x9E3779B97F4A7C15ull + (uint64_t)(uint32_t)rank * 0xBF58476D1CE4E5B9ull + seed;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (uint32_t)x;
}

NVS_HD double nvs_pattern_value(const nvs_pattern *p, int rank, uint64_t j)
{
    uint32_t h = nvs_pattern_hash(j, rank, p->seed);
    int owner = (int)(j % (uint64_t)p->nranks); /* the one rank per element that may differ */
    int shift = p->is_unsigned ? 1 : 0;
    switch (p->op) {
    case 0: /* sum */
        if (p->magnitude <= 0) return rank == owner ? (double)((int)(h % 7u) - 3 + 3 * shift) : 0.0;
        return (double)((int)(h % (uint32_t)(2 * p->magnitude + 1)) - p->magnitude + p->magnitude * shift);
    case 3: { /* prod */
        double s = (h & 1u) && !shift ? -1.0 : 1.0;
        return rank == owner && (h & 2u) ? 2.0 * s : s;
    }
    case 4: /* avg */
        if (p->is_int) {
            if (p->magnitude <= 0) return 0.0;
            uint32_t g = nvs_pattern_hash(j, 0, p->seed); /* the same on every rank */
            return (double)((int)(g % (uint32_t)(2 * p->magnitude + 1)) - p->magnitude + p->magnitude * shift);
        }
        if (rank != owner) return 0.0;
        return ((h & 1u) ? -1.0 : 1.0) * ((h & 2u) ? 2.0 : 1.0);
    default: /* max, min */
        return (double)((int)(h % 64u) - 32 + 32 * shift);
    }
}

/* The expected reduction over all ranks of element j (for reducing collectives). */
NVS_HD double nvs_pattern_reduced(const nvs_pattern *p, uint64_t j)
{
    double acc = nvs_pattern_value(p, 0, j);
    for (int r = 1; r < p->nranks; r++) {
        double v = nvs_pattern_value(p, r, j);
        switch (p->op) {
        case 0:
        case 4: acc += v; break;
        case 1: acc = v > acc ? v : acc; break;
        case 2: acc = v < acc ? v : acc; break;
        default: acc *= v; break;
        }
    }
    if (p->op == 4) return p->is_int ? acc / p->nranks : acc * p->avg_unit; /* both exact: see the top */
    return acc;
}

/* M for the sum pattern: the largest of 1..4 with M * nranks <= exact_int (the type's exact-integer bound),
 * 0 (sparse) when none fits. */
NVS_HD int nvs_pattern_magnitude(double exact_int, int nranks)
{
    for (int m = 4; m >= 1; m--)
        if ((double)m * nranks <= exact_int) return m;
    return 0;
}

#endif
