/* The best ring over n points (GPUs): the cycle through all of them whose slowest edge is the fastest (PURE).
 * One search for every reader of a ring's bound: the topology's (topo/topo_bounds.c, at run time) and a run.json's
 * (explain/explain_ring.c, offline: report), so that both name the same ring. */
#ifndef NVS_CORE_RING_H
#define NVS_CORE_RING_H

/* exact ring search up to 16 GPUs: 2^16 subsets x 16 x 16 steps per threshold, milliseconds */
#define NVS_RING_EXACT_MAX 16

/* Best cycle order over local indices 0..n-1 (n >= 2) with weights w (n x n, row-major: w[i * n + j] the edge
 * i -> j; higher is better, an unknown edge below every known one); order[] (n entries, order[0] = 0) gets the
 * ring. Returns its bottleneck. Exact for n <= NVS_RING_EXACT_MAX (bitmask search), greedy beyond. */
double nvs_ring_best_cycle(const double *w, int n, int *order);

#endif
