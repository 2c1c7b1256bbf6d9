/* run.json reader: the sweep size of a collective row written before rows said it ("size", 6 December 2026).
 * Such a row gives only "bytes", the size as the collective rounded it at that N; matched across N and against a
 * newer run by size, it would stand alone (1 MiB of all_gather over 3 ranks is 1048560 B). The file's "sweep"
 * section says which sizes were planned; the row's size is the one of them that rounds to its bytes. PURE. */
#include "runjson/runjson.h"

#include <string.h>

#include "core/dtype.h"

/* The collectives that split the size into one block per rank, and those that move it whole: the rounding of
 * collectives/coll.c (nvs_coll_per_rank, nvs_coll_counts_flat) by the descriptors' names. Repeated here because
 * runjson may not include collectives/ (src/LAYERS); tests/unit/test_runjson.c t_coll_round holds the two equal
 * for every collective, type and N it can name. */
static const char *const per_rank[] = {"all_gather", "reduce_scatter", "alltoall"};
static const char *const flat[] = {"all_reduce", "broadcast", "reduce", "sendrecv"};

static int named(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(name, list[i])) return 1;
    return 0;
}

double nvs_run_coll_round(const char *collective, size_t type_size, int n, double size)
{
    if (!type_size || n < 1 || !(size >= 0) || size > 9007199254740992.0) return -1;
    unsigned long long s = (unsigned long long)size, ts = type_size, nr = (unsigned long long)n;
    if (named(collective, flat, sizeof flat / sizeof flat[0])) return (double)(s / ts * ts);
    if (!named(collective, per_rank, sizeof per_rank / sizeof per_rank[0])) return -1;
    /* elements per rank trimmed to whole 16-byte blocks (nccl-tests 2.19.6 src/all_gather.cu) */
    unsigned long long base = s / ts / nr, align = ts < 16 ? 16 / ts : 1;
    base -= base % align;
    return (double)(base * nr * ts);
}

double nvs_run_size_of_bytes(const char *collective, const char *type, int n, double bytes, const size_t *sizes,
                             size_t nsizes)
{
    int t = type ? nvs_dtype_parse(type) : -1;
    size_t ts = t >= 0 ? nvs_dtype_size((nvs_dtype)t) : 0;
    if (!ts || !sizes || !nsizes || nvs_run_coll_round(collective, ts, n, 0) < 0) return bytes;
    /* the rounding never decreases as the size grows, and sizes ascend: the first size that rounds to at least
     * the bytes, by bisection, then those after it that round to them too */
    size_t lo = 0, hi = nsizes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nvs_run_coll_round(collective, ts, n, (double)sizes[mid]) < bytes) lo = mid + 1;
        else hi = mid;
    }
    if (lo == nsizes || nvs_run_coll_round(collective, ts, n, (double)sizes[lo]) != bytes) return bytes;
    if (lo + 1 < nsizes && nvs_run_coll_round(collective, ts, n, (double)sizes[lo + 1]) == bytes)
        return bytes; /* two sweep sizes measured as these bytes: which one this row is, the file does not say */
    return (double)sizes[lo];
}
