/* health / host / sustain / gpu rules against a run document (check_accept.h): the pass over the rules and which
 * rank drives a GPU; each metric is judged in a file of its own (check_accept_priv.h lists them). */
#include "check/check_accept.h"

#include <stdlib.h>

#include "check/check_accept_priv.h"
#include "check/check_gpus.h"

static int cmp_gpu_rank(const void *a, const void *b)
{
    const gpu_rank *x = a, *y = b;
    return x->gpu != y->gpu ? (x->gpu < y->gpu ? -1 : 1) : (x->order > y->order) - (x->order < y->order);
}

/* 0, -1 out of memory */
static int gpu_ranks_build(const json_t *root, gpu_ranks *gr)
{
    const json_t *ranks = json_object_get(root, "ranks");
    size_t n = json_array_size(ranks);
    gr->n = 0;
    gr->v = malloc((n ? n : 1) * sizeof *gr->v);
    if (!gr->v) return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(ranks, i), *tg = json_object_get(r, "topo_gpu");
        if (json_is_integer(tg) && json_integer_value(tg) >= 0)
            gr->v[gr->n++] = (gpu_rank){json_integer_value(tg), i, (int)json_integer_value(json_object_get(r, "rank"))};
    }
    qsort(gr->v, gr->n, sizeof *gr->v, cmp_gpu_rank);
    return 0;
}

int nvs_ca_rank_of_gpu(const gpu_ranks *gr, int gpu)
{
    size_t lo = 0, hi = gr->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gr->v[mid].gpu < gpu) lo = mid + 1;
        else hi = mid;
    }
    return gpu >= 0 && lo < gr->n && gr->v[lo].gpu == gpu ? gr->v[lo].rank : -1;
}

int nvs_check_eval_accept(const nvs_ruleset *rules, const json_t *root, nvs_verdicts *out)
{
    gpu_ranks gr;
    if (gpu_ranks_build(root, &gr)) return -1;
    health_facts hf;
    if (nvs_ca_health_facts_read(root, &hf)) {
        free(gr.v);
        return -1;
    }
    int rc = 0;
    unsigned named = 0;
    for (size_t i = 0; i < rules->n; i++)
        if (rules->v[i].metric == NVS_RULE_HEALTH && rules->v[i].health_check >= 0)
            named |= 1u << rules->v[i].health_check;
    for (size_t i = 0; i < rules->n && !rc; i++) {
        const nvs_rule *r = &rules->v[i];
        if (r->metric == NVS_RULE_HEALTH) rc = nvs_ca_eval_health(r, &hf, &gr, named, out);
        else if (r->metric == NVS_RULE_HOST) rc = nvs_ca_eval_host(r, root, &gr, out);
        else if (r->metric == NVS_RULE_SUSTAIN) rc = nvs_ca_eval_sustain(r, root, &gr, out);
        else if (r->metric == NVS_RULE_GPU) rc = nvs_ca_eval_gpu(r, root, &gr, out);
        else if (r->metric == NVS_RULE_GPUS) rc = nvs_check_eval_gpus(r, root, out);
    }
    nvs_ca_health_facts_free(&hf);
    free(gr.v);
    return rc ? -1 : 0;
}
