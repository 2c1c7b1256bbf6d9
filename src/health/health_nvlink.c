/* Health checks of NVLink (PURE): the links up against the host's other GPUs of the same model, links that went
 * down, and CRC / replay / recovery errors during the run. Part of the evaluation of health facts
 * (health_eval.c). */
#include <stdio.h>
#include <string.h>

#include "health/health_eval_priv.h"

/* NVIDIA's number, from DCGM's health watches (DCGM's dcgm_gpu_hardware_limits.h and DcgmHealthWatch.cpp): "RM
 * has informed us that CRC errors only matter at rates of 100+ per second" (below: a warning). */
#define NVLINK_CRC_FAIL_PER_S 100.0 /* DCGM_LIMIT_MAX_NVLINK_CRC_ERROR */

static int active_links(const nvs_health_snap *s)
{
    int n = 0;
    for (int i = 0; i < s->nlinks; i++) n += s->links[i].active == 1;
    return n;
}

/* The links whose state NVML did not give (active -1), their numbers into list ("7, 9"); how many. */
static int unread_links(const nvs_health_snap *s, char *list, size_t len)
{
    int n = 0;
    list[0] = '\0';
    for (int i = 0; i < s->nlinks; i++) {
        if (s->links[i].active >= 0) continue;
        size_t l = strlen(list);
        snprintf(list + l, len - l, "%s%d", n++ ? ", " : "", s->links[i].link);
    }
    return n;
}

/* The entry of link number `link` in a reading, NULL if it has none: the two readings are compared link by link
 * by number, not by place in the list (a run.json edited or written in another order would compare other links). */
static const nvs_health_link *link_in(const nvs_health_snap *s, int link)
{
    for (int i = 0; i < s->nlinks; i++)
        if (s->links[i].link == link) return &s->links[i];
    return NULL;
}

void nvs_he_eval_nvlink(nvs_health_finding *x, const nvs_health_report *r, int gi)
{
    const nvs_health_gpu *g = &r->gpus[gi];
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    if (b->nlinks < 0) {
        put(x->expected, sizeof x->expected, "every link up");
        nvs_he_unsupported(x, g, "NVLink state");
        return;
    }
    int up = active_links(b);
    /* the most links any GPU of the same model on this host has up: what this one should have */
    int peer = up;
    for (int k = 0; k < r->ngpus; k++) {
        const nvs_health_gpu *o = &r->gpus[k];
        if (o->why[0] || strcmp(o->host, g->host) || strcmp(o->name, g->name)) continue;
        int u = active_links(now_of(o));
        if (u > peer) peer = u;
    }
    char unread_list[96];
    int unread = unread_links(b, unread_list, sizeof unread_list);
    x->measured_v = up;
    x->expected_v = peer;
    if (unread) put(x->measured, sizeof x->measured, "%d up, %d not read", up, unread);
    else put(x->measured, sizeof x->measured, "%d link%s up", up, up == 1 ? "" : "s");
    put(x->expected, sizeof x->expected, "%d up", peer);
    if (unread) { /* neither up nor down: a state unknown is judged as such, never counted as a PASS */
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the state of link%s %s was not read (%s), so %s cannot be checked", unread == 1 ? "" : "s",
                 unread_list, g->read_errors[0] ? g->read_errors : "NVML answered with an error",
                 unread == 1 ? "it" : "they");
    }
    if (!peer && !b->nlinks) { /* NVML lists no link: a GPU without NVLink (GeForce, a VM's lone GPU) */
        put(x->measured, sizeof x->measured, "no NVLink");
        put(x->expected, sizeof x->expected, "-");
        return;
    }
    if (!peer && unread) { /* nothing known up here: the links not read are all there is to say */
        put(x->expected, sizeof x->expected, "-");
        return;
    }
    if (!peer) {
        /* NVML lists this GPU's links (nvmlDeviceGetNvLinkState: NVML_FEATURE_DISABLED, inactive) and no GPU of
         * its model here has one up: nothing to compare with, so not a FAIL, but not "no NVLink" either. It is
         * what a box of NVLink-capable cards whose bridges are all missing looks like, and every transfer of
         * the run went over PCIe or host memory. */
        put(x->measured, sizeof x->measured, "0 of %d links up", b->nlinks);
        put(x->expected, sizeof x->expected, "-");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "NVML lists %d NVLink%s on this GPU, none up, on every %s GPU of the host: NVLink carried nothing "
                    "in this run (bridges missing or not seated; on NVSwitch systems, the fabric)",
                 b->nlinks, b->nlinks == 1 ? "" : "s", g->name[0] ? g->name : "such");
        return;
    }
    if (up < peer && up + unread >= peer) /* the links not read may be the ones up elsewhere: said above */
        note_add(x, "%d of %d links known up: the host's other %s GPUs have %d", up, peer,
                 g->name[0] ? g->name : "same", peer);
    else if (up < peer) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "%d of %d links up: the host's other %s GPUs have %d (a link is down: bridge, cable or NVSwitch)",
                 up, peer, g->name[0] ? g->name : "same", peer);
    }
    if (g->have_after)
        for (int i = 0; i < b->nlinks; i++) {
            const nvs_health_link *p = link_in(a, b->links[i].link);
            if (p && p->active == 1 && b->links[i].active == 0) {
                worsen(x, NVS_SEV_FAIL);
                x->link = b->links[i].link;
                note_add(x, "link %d went down during the run", b->links[i].link);
            }
        }
}

void nvs_he_eval_nvlink_errors(nvs_health_finding *x, const nvs_health_gpu *g, double window_s)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "0 during the run");
    x->expected_v = 0;
    if (b->nlinks < 0) {
        nvs_he_unsupported(x, g, "NVLink error counters");
        return;
    }
    if (!active_links(b)) { /* no counter to read: none listed, or none up (eval_nvlink says which matters) */
        put(x->measured, sizeof x->measured, b->nlinks ? "no link up" : "no NVLink");
        put(x->expected, sizeof x->expected, "-");
        return;
    }
    int supported = 0;
    for (int i = 0; i < b->nlinks; i++)
        supported |= b->links[i].crc_flit >= 0 || b->links[i].replay >= 0 || b->links[i].recovery >= 0;
    if (!supported) {
        nvs_he_unsupported(x, g, "NVLink error counters");
        return;
    }
    if (!g->have_after) {
        put(x->measured, sizeof x->measured, "one reading");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "one reading only: no change over the run can be computed");
        return;
    }
    long long tot_crc = 0, tot_rep = 0, tot_rec = 0, worst = 0;
    int compared = 0; /* links with a counter read both before and after */
    for (int i = 0; i < b->nlinks; i++) {
        const nvs_health_link *q = &b->links[i], *p = link_in(a, q->link);
        if (!p) continue; /* not read before the run: no change to compute */
        compared |= delta(p->crc_flit, q->crc_flit) >= 0 || delta(p->crc_data, q->crc_data) >= 0 ||
                    delta(p->replay, q->replay) >= 0 || delta(p->recovery, q->recovery) >= 0;
        long long crc = 0, d;
        if ((d = delta(p->crc_flit, q->crc_flit)) > 0) crc += d;
        if ((d = delta(p->crc_data, q->crc_data)) > 0) crc += d;
        long long rep = delta(p->replay, q->replay), rec = delta(p->recovery, q->recovery);
        rep = rep > 0 ? rep : 0;
        rec = rec > 0 ? rec : 0;
        tot_crc += crc;
        tot_rep += rep;
        tot_rec += rec;
        long long score = rec * 1000000 + crc + rep;
        if (score > worst) {
            worst = score;
            x->link = q->link;
        }
        /* as DCGM: a recovery or a replay is a failure; CRC errors only at 100 a second or more (over at least a
         * second: a window too short to time is held to the count) */
        if (rec > 0) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "link %d: %lld recover%s (the link retrained: bridge, cable or NVSwitch port)", q->link, rec,
                     rec == 1 ? "y" : "ies");
        }
        if (rep > 0) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "link %d: %lld replay%s (data sent again)", q->link, rep, rep == 1 ? "" : "s");
        }
        double per_s = (double)crc / (window_s > 1 ? window_s : 1);
        if (per_s >= NVLINK_CRC_FAIL_PER_S) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "link %d: %lld CRC errors, %.0f per second (DCGM fails %.0f)", q->link, crc, per_s,
                     NVLINK_CRC_FAIL_PER_S);
        } else if (crc > 0) {
            worsen(x, NVS_SEV_WARN);
            note_add(x, "link %d: %lld CRC error%s (%.2g per second, under DCGM's %.0f)", q->link, crc,
                     crc == 1 ? "" : "s", per_s, NVLINK_CRC_FAIL_PER_S);
        }
    }
    if (!compared) { /* every counter unread before the run: "0 CRC, 0 replay, 0 recovery" would be a guess */
        put(x->measured, sizeof x->measured, "not read before");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the error counters were not read before the run: no change over the run can be computed");
        return;
    }
    x->measured_v = (double)(tot_crc + tot_rep + tot_rec);
    put(x->measured, sizeof x->measured, "%lld CRC, %lld replay, %lld recovery", tot_crc, tot_rep, tot_rec);
}
