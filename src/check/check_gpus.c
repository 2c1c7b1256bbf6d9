/* gpus per_host rules against a run document (check_gpus.h). */
#include "check/check_gpus.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The hosts of the run, in the order world.hosts lists them (ranks[] order when the run has no world.hosts). */
static size_t hosts_of(const json_t *root, const char **names, size_t cap)
{
    const json_t *wh = json_object_get(json_object_get(root, "world"), "hosts"),
                 *ranks = json_object_get(root, "ranks");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(wh) && n < cap; i++) {
        const char *h = str(json_array_get(wh, i), "name");
        if (*h) names[n++] = h;
    }
    if (n) return n;
    for (size_t i = 0; i < json_array_size(ranks) && n < cap; i++) {
        const char *h = str(json_array_get(ranks, i), "host");
        size_t k = 0;
        while (k < n && strcmp(names[k], h)) k++;
        if (k == n) names[n++] = h;
    }
    return n;
}

typedef struct {
    int ranks;    /* ranks on the host */
    int measured; /* distinct GPUs (PCI bus ids) they ran on */
    int topo;     /* GPUs in the host's topology section; -1: the run has none for it */
    int nvml;     /* GPUs NVML listed on it (health.gpus); -1: the run has no health section */
} host_count;

/* 0, -1 out of memory */
static int count_host(const json_t *root, const char *host, host_count *c)
{
    const json_t *ranks = json_object_get(root, "ranks");
    size_t nr = json_array_size(ranks);
    const char **seen = malloc((nr ? nr : 1) * sizeof *seen);
    if (!seen) return -1;
    *c = (host_count){0, 0, -1, -1};
    for (size_t i = 0; i < nr; i++) {
        const json_t *r = json_array_get(ranks, i);
        if (strcmp(str(r, "host"), host)) continue;
        c->ranks++;
        const char *bus = str(r, "pci_bus_id");
        if (!*bus) continue; /* a host-backend rank: no GPU */
        int k = 0;
        while (k < c->measured && strcmp(seen[k], bus)) k++;
        if (k == c->measured) seen[c->measured++] = bus;
    }
    free(seen);
    const json_t *th = json_object_get(json_object_get(root, "topology"), "hosts");
    for (size_t i = 0; i < json_array_size(th); i++)
        if (!strcmp(str(json_array_get(th, i), "name"), host))
            c->topo = (int)json_array_size(json_object_get(json_array_get(th, i), "gpus"));
    const json_t *health = json_object_get(root, "health");
    if (json_is_array(json_object_get(health, "gpus"))) {
        c->nvml = 0;
        const json_t *hg = json_object_get(health, "gpus");
        for (size_t i = 0; i < json_array_size(hg); i++) c->nvml += !strcmp(str(json_array_get(hg, i), "host"), host);
    }
    return 0;
}

static void note_add(nvs_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(nvs_verdict *v, const char *fmt, ...)
{
    char part[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(part, sizeof part, fmt, ap);
    va_end(ap);
    size_t l = strlen(v->note);
    snprintf(v->note + l, sizeof v->note - l, "%s%s", l ? "; " : "", part);
}

/* What the other counts say about a host that showed fewer GPUs than it has, or than the rule wants. */
static void explain(nvs_verdict *v, const json_t *root, const host_count *c, int want)
{
    const json_t *cmd = json_object_get(root, "command");
    if (!c->measured) {
        const char *why = str(cmd, "no_gpu");
        if (*why) note_add(v, "no GPU found (%.200s); --backend mpi accepts a host without GPUs", why);
        else if (!strcmp(str(cmd, "backend"), "mpi")) note_add(v, "the host backend ran (--backend mpi)");
    }
    int other = c->topo > c->nvml ? c->topo : c->nvml;
    if (other > c->measured) {
        if (c->topo > c->measured) note_add(v, "%d GPUs in its topology (PCI)", c->topo);
        if (c->nvml > c->measured) note_add(v, "NVML lists %d", c->nvml);
        if (!strcmp(str(cmd, "launcher"), "mpi") && c->ranks < other)
            note_add(v, "%d rank%s ran there: launch one per GPU", c->ranks, c->ranks == 1 ? "" : "s");
        else if (c->measured) /* one process takes every GPU CUDA shows it */
            note_add(v, "CUDA showed %d (CUDA_VISIBLE_DEVICES, or a GPU CUDA cannot start: nvidia-smi)", c->measured);
    } else if (c->measured < want && c->measured)
        note_add(v, "no more in its topology or NVML: a GPU missing from the PCI bus? (lspci -d 10de:)");
}

int nvs_check_eval_gpus(const nvs_rule *r, const json_t *root, nvs_verdicts *vs)
{
    const json_t *ranks = json_object_get(root, "ranks");
    size_t cap = json_array_size(ranks) + json_array_size(json_object_get(json_object_get(root, "world"), "hosts"));
    const char **hosts = malloc((cap ? cap : 1) * sizeof *hosts);
    if (!hosts) return -1;
    size_t nh = hosts_of(root, hosts, cap);
    int want = (int)r->min, rc = 0;
    if (!nh) {
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "gpus");
        if (!v) rc = -1;
        else {
            snprintf(v->metric, sizeof v->metric, "%s", r->text);
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->expected, sizeof v->expected, ">= %d", want);
            snprintf(v->note, sizeof v->note, "not measured: the run lists no ranks");
            v->unit = "GPUs";
            v->expected_v = want;
            nvs_verdict_miss(vs, v, r);
        }
    }
    for (size_t h = 0; h < nh && !rc; h++) {
        host_count c;
        nvs_verdict *v = count_host(root, hosts[h], &c) ? NULL : nvs_verdicts_add_rule(vs, r, "gpus");
        if (!v) {
            rc = -1;
            break;
        }
        snprintf(v->metric, sizeof v->metric, "gpus on %.200s", hosts[h]);
        snprintf(v->host, sizeof v->host, "%s", hosts[h]);
        snprintf(v->measured, sizeof v->measured, "%d", c.measured);
        snprintf(v->expected, sizeof v->expected, ">= %d", want);
        snprintf(v->margin, sizeof v->margin, "%+d", c.measured - want);
        v->unit = "GPUs";
        v->measured_v = c.measured;
        v->expected_v = want;
        v->margin_v = c.measured - want;
        explain(v, root, &c, want);
        if (c.measured < want) nvs_verdict_miss(vs, v, r);
        else nvs_verdict_set(vs, v, NVS_SEV_PASS);
    }
    free(hosts);
    return rc;
}
