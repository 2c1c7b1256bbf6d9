/* Calibration (model_calib.h): what the run says of its hardware: the GPU preset, the transports NCCL connected
 * its rings with, the machine preset (given or guessed from the topology) and the configuration set up from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "model/model_calib_priv.h"

/* The machine of a run that has no preset: only the measured N can be evaluated. */
static void measured_only_machine(nvs_machine_spec *m, int gpus)
{
    memset(m, 0, sizeof *m);
    m->id = "measured";
    m->gpus = gpus < 2 ? 2 : gpus;
    m->sockets = 1;
    m->p2p_level = NVS_CLS_PXB;
    m->measured_only = 1;
    m->nics = 1;
    /* never used inside the node (only measured N are evaluated); the network share is not capped by PCIe */
    m->gpu_link_gbps = m->uplink_gbps = m->shm_gbps = 1e9;
}

static const char *guess_machine(const nvs_run *r, const char *gpu_preset, char *how, size_t howlen)
{
    if (!r->topology.present || r->topology.npairs == 0) {
        snprintf(how, howlen, "none: the run has no topology pairs (give --machine)");
        return NULL;
    }
    int all_nv = 1;
    for (size_t i = 0; i < r->topology.npairs; i++) {
        if (!nvs_link_class_is_nvlink(r->topology.pairs[i].cls)) all_nv = 0;
    }
    /* GPUs of several hosts talk over the network: the pairs between hosts are not listed (NET) since 3 December
     * 2026, and no preset is one machine of them */
    for (size_t i = 1; i < r->topology.ngpus; i++) {
        const char *h0 = r->topology.gpus[0].host, *hi = r->topology.gpus[i].host;
        if (h0 && hi && strcmp(h0, hi)) all_nv = 0;
    }
    size_t ngpus = r->topology.ngpus;
    const char *cls0 = r->topology.pairs[0].cls ? r->topology.pairs[0].cls : "?";
    const char *pick = NULL;
    if (all_nv && ngpus == 2) pick = "nvlink-2gpu";
    else if (all_nv && ngpus == 8 && (strstr(gpu_preset, "h100") || strstr(gpu_preset, "h200"))) pick = "hgx-h100-8";
    else if (all_nv && ngpus == 8 && strstr(gpu_preset, "a100")) pick = "hgx-a100-8";
    if (pick)
        snprintf(how, howlen, "guessed from the topology: %s, %zu GPUs", cls0, ngpus);
    else
        snprintf(how, howlen, "none: no preset matches the topology (%s, %zu GPUs); give --machine", cls0, ngpus);
    return pick;
}

/* Appends src to the label as printable ASCII (anything else as '?': a run.json is input, and a label cut inside
 * a UTF-8 character would make invalid JSON), cut to fit. */
static void label_add(char *label, size_t size, const char *src)
{
    size_t len = strlen(label);
    for (; *src && len + 1 < size; src++) label[len++] = (*src >= 0x20 && *src < 0x7f) ? *src : '?';
    label[len] = '\0';
}

/* The transports NCCL connected the run's rings with at each N >= 2 (run.json transports[], from its INIT log);
 * entries of one N are merged. */
/* The hosts the ranks at n were on: scaling[n]'s ranks (the first n ranks where the run lists none) looked up in
 * ranks[]; 0 when a rank's host is not known. Several hosts at an N whose rings went over NET is the network between
 * nodes, not the hosts-told-apart path of one node (net_local). */
static int hosts_at_n(const nvs_run *r, int n)
{
    const nvs_run_scaling *sc = NULL;
    for (size_t i = 0; i < r->nscaling && !sc; i++)
        if (r->scaling[i].n == n && r->scaling[i].ranks && r->scaling[i].nranks == (size_t)n) sc = &r->scaling[i];
    const char *seen[64]; /* more hosts than this read as 64: the sentence only tells one host from several */
    int hosts = 0;
    for (int k = 0; k < n; k++) {
        int rank = sc ? sc->ranks[k] : k;
        const char *h = NULL;
        for (size_t j = 0; j < r->nranks && !h; j++)
            if (r->ranks[j].rank == rank) h = r->ranks[j].host;
        if (!h) return 0;
        int known = 0;
        for (int s = 0; s < hosts && !known; s++) known = !strcmp(seen[s], h);
        if (known) continue;
        if (hosts == (int)(sizeof seen / sizeof seen[0])) return hosts;
        seen[hosts++] = h;
    }
    return hosts;
}

static void read_transports(const nvs_run *r, nvs_calibration *out)
{
    for (size_t i = 0; i < r->ntransports; i++) {
        const nvs_run_transport *t = &r->transports[i];
        if (t->n < 2 || t->nsummary == 0) continue;
        nvs_calib_transport *c = NULL;
        for (int k = 0; k < out->ntr && !c; k++)
            if (out->tr[k].n == t->n) c = &out->tr[k];
        if (!c) {
            if (out->ntr == NVS_MODEL_MAX_MEAS) continue;
            c = &out->tr[out->ntr++];
            memset(c, 0, sizeof *c);
            c->n = t->n;
            c->hosts = hosts_at_n(r, t->n);
        }
        for (size_t k = 0; k < t->nsummary; k++) {
            const char *key = t->summary[k].key ? t->summary[k].key : "?";
            c->net |= !strcmp(key, "NET");
            c->shm |= !strcmp(key, "SHM");
            c->p2p |= !strcmp(key, "P2P");
            int collnet = !strcmp(key, "COLLNET");
            c->collnet |= collnet;
            /* NET and COLLNET named by their plugin and device as NCCL printed them (NET/Socket/0, NET/IB/0,
             * COLLNET/SHARP/0/GDRDMA) */
            if (c->label[0]) label_add(c->label, sizeof c->label, "+");
            label_add(c->label, sizeof c->label,
                      !strcmp(key, "NET") && t->net_detail       ? t->net_detail
                      : collnet && t->collnet_detail             ? t->collnet_detail
                                                                 : key);
        }
    }
}

nvs_result_t nvs_mc_gpu(const nvs_run *r, const char *run_path, const nvs_presets *ps, const nvs_calib_opts *o,
                        nvs_calibration *out, const nvs_preset **gpp, char *err, size_t errlen)
{
    const char *gname = r->nranks > 0 && r->ranks[0].gpu ? r->ranks[0].gpu : NULL;
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", gname ? gname : "unknown");
    const nvs_preset *gp = o->gpu ? nvs_presets_find(ps, NVS_PK_GPU, o->gpu) : nvs_presets_match_gpu(ps, gname);
    if (!gp) {
        if (o->gpu)
            snprintf(err, errlen, "unknown --gpu '%s' (nvscale model --list-presets)", o->gpu);
        else {
            /* a preset is matched to the exact card (preset.h), never a sibling: say which there are */
            size_t o2 = gname ? (size_t)snprintf(err, errlen,
                                                 "%s: no GPU preset matches ranks[0].gpu \"%s\": give --gpu ID "
                                                 "(GPU presets:", run_path, gname)
                                /* a run without the name: said so, not quoted as if "(absent)" were the card */
                                : (size_t)snprintf(err, errlen,
                                                   "%s: the run records no GPU name (ranks[0].gpu): give --gpu ID "
                                                   "(GPU presets:", run_path);
            for (int i = 0; i < ps->kind[NVS_PK_GPU].n && o2 < errlen; i++)
                o2 += (size_t)snprintf(err + o2, errlen - o2, "%s %s", i ? "," : "", ps->kind[NVS_PK_GPU].v[i].id);
            if (o2 < errlen) snprintf(err + o2, errlen - o2, ")");
        }
        return NVS_ERR_INPUT;
    }
    snprintf(out->gpu_preset, sizeof out->gpu_preset, "%s", gp->id);
    const char *p2p = nvs_run_env(r, "NCCL_P2P_DISABLE");
    out->p2p_env = out->p2p_disabled = p2p && !strcmp(p2p, "1");
    /* rings NCCL made of SHM alone at every N it reports (GPUs without P2P, or P2P turned off some other way) are
     * modelled as such; the model has one P2P setting for all N, so a run with P2P at some N keeps it */
    read_transports(r, out);
    int shm_only = 0, p2p_seen = 0;
    for (int i = 0; i < out->ntr; i++) {
        shm_only += out->tr[i].shm && !out->tr[i].p2p && !out->tr[i].net;
        p2p_seen |= out->tr[i].p2p;
    }
    if (shm_only > 0 && !p2p_seen) out->p2p_disabled = 1;
    const char *shm = nvs_run_env(r, "NCCL_SHM_DISABLE");
    out->shm_env = shm && !strcmp(shm, "1");
    int net_only = 0, other_seen = 0, one_host = r->topology.ngpus > 0;
    for (int i = 0; i < out->ntr; i++) {
        net_only += out->tr[i].net && !out->tr[i].shm && !out->tr[i].p2p;
        other_seen |= out->tr[i].shm || out->tr[i].p2p;
    }
    for (size_t i = 1; i < r->topology.ngpus; i++) {
        const char *h0 = r->topology.gpus[0].host, *hi = r->topology.gpus[i].host;
        if (!h0 || !hi || strcmp(h0, hi)) one_host = 0;
    }
    out->net_local = net_only > 0 && !other_seen && one_host;
    *gpp = gp;
    return NVS_OK;
}

nvs_result_t nvs_mc_machine(const nvs_run *r, const char *run_path, const nvs_presets *ps, const nvs_calib_opts *o,
                            const nvs_preset *gp, nvs_calibration *out, const nvs_preset **mpp, char *err,
                            size_t errlen)
{
    nvs_result_t res = NVS_OK;
    int *ns = NULL;
    const nvs_preset *mp = NULL;
    if (o->machine) {
        mp = nvs_presets_find(ps, NVS_PK_MACHINE, o->machine);
        if (!mp) {
            snprintf(err, errlen, "unknown --machine '%s' (nvscale model --list-presets)", o->machine);
            res = NVS_ERR_INPUT;
            goto fail;
        }
        snprintf(out->machine_how, sizeof out->machine_how, "--machine");
    } else {
        const char *g = guess_machine(r, gp->id, out->machine_how, sizeof out->machine_how);
        if (g) mp = nvs_presets_find(ps, NVS_PK_MACHINE, g);
    }
    if (mp) snprintf(out->machine_preset, sizeof out->machine_preset, "%s", mp->id);

    int nns = nvs_run_ns(r, &ns);
    if (nns < 0) {
        res = NVS_ERR_NOMEM;
        goto fail;
    }
    int maxn = 1;
    for (int i = 0; i < nns; i++)
        if (ns[i] > maxn) maxn = ns[i];
    if (mp && maxn > (int)mp->f[NVS_M_GPUS].v) {
        snprintf(err, errlen, "%s: the run has %d GPUs; machine '%s' has %d", run_path, maxn, mp->id,
                 (int)mp->f[NVS_M_GPUS].v);
        res = NVS_ERR_INPUT;
        goto fail;
    }

    nvs_model_config *cfg = &out->cfg;
    nvs_model_config_init(cfg);
    cfg->dp = NVS_DP_DDP; /* nvscale's training step all-reduces DDP buckets during backward, whatever the profile */
    nvs_gpu_spec_from(gp, &cfg->gpu);
    if (mp)
        nvs_machine_spec_from(mp, &cfg->machine);
    else
        measured_only_machine(&cfg->machine, maxn);
    cfg->p2p_disabled = out->p2p_disabled || out->net_local;
    cfg->shm_disabled = out->shm_env || out->net_local;
    snprintf(cfg->label, sizeof cfg->label, "%s @ %s (calibrated on %s)", gp->id, mp ? mp->id : "measured machine",
             run_path);
    *mpp = mp;
fail:
    free(ns);
    return res;
}
