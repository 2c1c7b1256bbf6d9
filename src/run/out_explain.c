/* run.json's "explain" section and the paragraphs under the table: per N, the slowest hop of the best ring over
 * the GPUs used (topology), what NCCL used (its log), measured busbw against the hop's bound, and the exposed
 * communication of the training step. The facts come from the finished run.json through the same reader and
 * the same words `nvscale report` uses, so screen, file and report say the same thing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"
#include "core/link_class.h"
#include "core/log.h"
#include "explain/explain.h"
#include "run/run.h"
#include "runjson/runjson.h"

/* The ring NCCL can build over these GPUs is at best as fast as its slowest hop: replace the reader's estimate
 * (consecutive GPUs in rank order) with the best ring's bottleneck when the topology is at hand. */
static void best_ring(const nvs_ctx *ctx, const nvs_scale_point *pt, nvs_explain_facts *f, nvs_topo_hop *hop)
{
    /* the host backend's ranks are CPU processes: no GPU ring carries their collectives */
    if (!ctx->topo || pt->n < 2 || (ctx->backend.ops && !strcmp(ctx->backend.ops->name, "mpi"))) return;
    int *gpus = malloc((size_t)pt->n * sizeof *gpus);
    if (!gpus) return;
    int ok = 1;
    for (int i = 0; i < pt->n && ok; i++) {
        gpus[i] = ctx->ranks[pt->ranks[i]].topo_gpu;
        ok = gpus[i] >= 0;
    }
    /* the bound of the hop's own link, the one its class names, as the report derives it from the file's pairs:
     * where NCCL went around an NVLink hop (NCCL_P2P_DISABLE, SHM or NET), the bound of the host-memory path was
     * quoted under the hop's NVLink class ("NV18 ... 63.0 GB/s bound of that hop"), and the verdict called it the
     * NV18 bound. The Why says that NCCL did not use the hop; pairs without CUDA P2P still get the host path. */
    double bound = ok ? nvs_topo_ring_bound_gbps(ctx->topo, gpus, pt->n, 1, hop) : -1;
    /* a network hop of unknown rate is still the ring's slowest: the best ring ranks unknown below known */
    if (ok && (bound >= 0 || nvs_link_class_parse(hop->cls, NULL) == NVS_CLASS_NET)) {
        const nvs_topo_pair *pr = nvs_topo_pair_at(ctx->topo, hop->from_gpu, hop->to_gpu);
        nvs_explain_set_hop(f, hop->from_gpu, hop->to_gpu, hop->cls, bound >= 0 ? bound : NAN, hop->source,
                            pr ? pr->p2p_cuda : -1);
    }
    free(gpus);
}

json_t *nvs_ctx_explain(const nvs_ctx *ctx, json_t *root)
{
    nvs_run parsed;
    char err[512];
    memset(&parsed, 0, sizeof parsed);
    if (nvs_run_from_json(root, "run.json", 0, &parsed, err, sizeof err) != NVS_OK) {
        nvs_warn("no explanation: the run's own run.json did not read back (%s)", err);
        return NULL;
    }
    json_t *arr = json_array();
    for (int p = 0; arr && p < ctx->npoints; p++) {
        nvs_explain_facts f;
        nvs_topo_hop hop;
        memset(&hop, 0, sizeof hop);
        nvs_explain_facts_from_run(&parsed, ctx->points[p].n, &f);
        best_ring(ctx, &ctx->points[p], &f, &hop);
        json_t *e = nvs_explain_json(&f);
        if (e) json_array_append_new(arr, e);
    }
    nvs_run_free(&parsed);
    return arr;
}

void nvs_print_explain(const json_t *explain, FILE *to)
{
    size_t i;
    json_t *e;
    int first = 1;
    json_array_foreach(explain, i, e)
    {
        const char *t = json_string_value(json_object_get(e, "text"));
        if (!t || !*t) continue;
        if (first) fprintf(to, "#\n# Why\n");
        first = 0;
        fprintf(to, "#  %s\n", t);
    }
}
