/* The best ring's search (core/ring.h): bisection over the distinct edge weights, each a Hamiltonian-cycle test
 * by dynamic programming over subsets. */
#include <stdlib.h>
#include <string.h>

#include "core/ring.h"

/* Is there a Hamiltonian cycle over n vertices using only edges with w >= thr? order[] gets it (from 0). */
static int ham_cycle(const double *w, int n, double thr, unsigned *reach, int *order)
{
    unsigned full = (1u << n) - 1;
    memset(reach, 0, sizeof(unsigned) << n);
    reach[1] = 1; /* at vertex 0, having visited {0} */
    for (unsigned m = 1; m <= full; m++) {
        if (!(m & 1) || !reach[m]) continue;
        for (int v = 0; v < n; v++) {
            if (!(reach[m] >> v & 1)) continue;
            for (int u = 1; u < n; u++)
                if (!(m >> u & 1) && w[v * n + u] >= thr) reach[m | 1u << u] |= 1u << u;
        }
    }
    int last = -1;
    for (int v = 1; v < n && last < 0; v++)
        if ((reach[full] >> v & 1) && w[v * n + 0] >= thr) last = v;
    if (last < 0) return 0;
    /* walk back: order[n-1] = last, then a predecessor reachable with the smaller mask */
    unsigned m = full;
    int cur = last;
    for (int pos = n - 1; pos >= 1; pos--) {
        order[pos] = cur;
        unsigned pm = m & ~(1u << cur);
        int prev = -1;
        for (int v = 0; v < n && prev < 0; v++)
            if ((reach[pm] >> v & 1) && w[v * n + cur] >= thr) prev = v;
        m = pm;
        cur = prev;
    }
    order[0] = 0;
    return 1;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

double nvs_ring_best_cycle(const double *w, int n, int *order)
{
    if (n <= NVS_RING_EXACT_MAX) {
        double *vals = malloc(sizeof(double) * (size_t)n * (size_t)n);
        unsigned *reach = malloc(sizeof(unsigned) << n);
        int nv = 0;
        if (vals && reach) {
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    if (i != j) vals[nv++] = w[i * n + j];
            qsort(vals, (size_t)nv, sizeof *vals, cmp_desc);
            int u = 0; /* distinct values, descending */
            for (int k = 0; k < nv; k++)
                if (!u || vals[k] != vals[u - 1]) vals[u++] = vals[k];
            /* a cycle at a threshold is one at every lower threshold: the highest one is found by bisection, in
             * log2(n^2) searches instead of up to n^2 (16 GPUs with all-different bounds: 8 instead of 240) */
            int lo = 0, hi = u - 1;
            if (u && ham_cycle(w, n, vals[hi], reach, order)) {
                while (lo < hi) {
                    int mid = lo + (hi - lo) / 2;
                    if (ham_cycle(w, n, vals[mid], reach, order)) hi = mid;
                    else lo = mid + 1;
                }
                ham_cycle(w, n, vals[lo], reach, order); /* the order of the answer */
                double v = vals[lo];
                free(vals);
                free(reach);
                return v;
            }
        }
        free(vals);
        free(reach);
    }
    /* greedy: from GPU 0 always to the fastest unvisited neighbour (lowest index on ties) */
    char *used = calloc((size_t)n, 1);
    if (!used) {
        for (int i = 0; i < n; i++) order[i] = i;
    } else {
        order[0] = 0;
        used[0] = 1;
        for (int pos = 1; pos < n; pos++) {
            int prev = order[pos - 1], bestj = -1;
            for (int j = 0; j < n; j++)
                if (!used[j] && (bestj < 0 || w[prev * n + j] > w[prev * n + bestj])) bestj = j;
            order[pos] = bestj;
            used[bestj] = 1;
        }
        free(used);
    }
    double bn = w[order[n - 1] * n + order[0]];
    for (int i = 0; i + 1 < n; i++) if (w[order[i] * n + order[i + 1]] < bn) bn = w[order[i] * n + order[i + 1]];
    return bn;
}
