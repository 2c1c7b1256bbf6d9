/* Who is slowest in a run: the rank at each N, the p2p pair, the ring's hop (PURE; check_eval.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check/check_eval_priv.h"

size_t nvs_check_slowest_ranks(const nvs_run *run, nvs_slowest_rank *out, size_t cap)
{
    size_t k = 0, nns;
    int *ns = nvs_ck_run_ns(run, &nns);
    for (size_t ni = 0; ni < nns && k < cap; ni++) {
        int n = ns[ni], maxrank = -1;
        if (n < 2) continue;
        for (size_t i = 0; i < run->ncolls; i++)
            if (run->colls[i].n == n && run->colls[i].slowest_rank > maxrank) maxrank = run->colls[i].slowest_rank;
        if (maxrank < 0) continue;
        int *count = calloc((size_t)maxrank + 1, sizeof *count);
        double *lag = calloc((size_t)maxrank + 1, sizeof *lag);
        if (!count || !lag) {
            free(count);
            free(lag);
            break;
        }
        nvs_slowest_rank s = {.n = n, .rank = -1, .lag_pct = NAN, .device = -1};
        double lag_sum = 0;
        int lag_n = 0;
        for (size_t i = 0; i < run->ncolls; i++) {
            const nvs_run_coll *c = &run->colls[i];
            if (c->n != n || c->slowest_rank < 0) continue;
            s.configs++;
            count[c->slowest_rank]++;
            if (!isnan(c->time_max_us) && !isnan(c->time_min_us) && c->time_min_us > 0) {
                lag[c->slowest_rank] += c->time_max_us - c->time_min_us;
                lag_sum += (c->time_max_us - c->time_min_us) / c->time_min_us * 100;
                lag_n++;
            }
        }
        for (int r = 0; r <= maxrank; r++)
            if (count[r] && (s.rank < 0 || count[r] > count[s.rank] ||
                             (count[r] == count[s.rank] && lag[r] > lag[s.rank])))
                s.rank = r;
        s.slowest_in = count[s.rank];
        if (lag_n) s.lag_pct = lag_sum / lag_n;
        for (size_t i = 0; i < run->nranks; i++)
            if (run->ranks[i].rank == s.rank) {
                snprintf(s.host, sizeof s.host, "%s", str(run->ranks[i].host));
                s.device = run->ranks[i].device;
            }
        free(count);
        free(lag);
        out[k++] = s;
    }
    free(ns);
    return k;
}

int nvs_check_slowest_pair(const nvs_run *run)
{
    const nvs_run_p2p_pair *p = run->p2p.pairs;
    int best = -1;
    for (size_t i = 0; i < run->p2p.npairs; i++)
        if (!isnan(p[i].uni_gbps) && (best < 0 || p[i].uni_gbps < p[best].uni_gbps)) best = (int)i;
    return best;
}

const nvs_run_explain *nvs_check_slowest_hop(const nvs_run *run)
{
    const nvs_run_explain *h = NULL;
    for (size_t i = 0; i < run->nexplain; i++) {
        const nvs_run_explain *e = &run->explain[i];
        if (e->has_hop && e->hop_from_gpu >= 0 && e->hop_to_gpu >= 0 && (!h || e->n > h->n)) h = e;
    }
    return h;
}
