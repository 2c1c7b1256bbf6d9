/* How the topology scales with hosts (a CPU benchmark, no GPU): H copies of one host's saved hwloc XML (the HGX
 * fixture: 8 GPUs, 8 NICs) are merged as the gather merges them, written as run.json's "topology", read back, and
 * cut to every GPU in round-robin rank order (--map-by node), as placement does, then the bound of a ring over
 * them all (what the explanation of each N computes). Prints the wall time of each step, the JSON's size and the
 * peak RSS, and checks that the read-back classes are the merged ones.
 * --pick: also placement's greedy search for half the GPUs (--placement best).
 * Usage: build/topo_scale [HOSTS] [HWLOC_XML] [--pick]   (make topo-scale; results/cpu-topo-scale/) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/out_file.h"
#include "topo/topo.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_mb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024; /* Linux: KB */
}

/* every class of u equals t's (pairs, GPU-NIC, NIC-NIC) */
static int same_classes(const nvs_topology *t, const nvs_topology *u)
{
    if (t->ngpus != u->ngpus || t->nnics != u->nnics) return 0;
    for (int a = 0; a < t->ngpus; a++) {
        for (int b = 0; b < t->ngpus; b++)
            if (strcmp(nvs_topo_pair_class(t, a, b), nvs_topo_pair_class(u, a, b))) return 0;
        for (int k = 0; k < t->nnics; k++)
            if (strcmp(nvs_topo_gpu_nic_class(t, a, k), nvs_topo_gpu_nic_class(u, a, k))) return 0;
    }
    for (int a = 0; a < t->nnics; a++)
        for (int b = 0; b < t->nnics; b++)
            if (strcmp(nvs_topo_nic_nic_class(t, a, b), nvs_topo_nic_nic_class(u, a, b))) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL}, *usage = "usage: topo_scale [HOSTS] [HWLOC_XML] [--pick]";
    int npos = 0, pick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pick")) pick = 1;
        else if (argv[i][0] == '-' && argv[i][1] && (argv[i][1] < '0' || argv[i][1] > '9')) {
            fprintf(stderr, "topo_scale: unknown option '%s' (%s)\n", argv[i], usage);
            return 2;
        } else if (npos < 2) pos[npos++] = argv[i];
        else {
            fprintf(stderr, "topo_scale: unexpected argument '%s' (%s)\n", argv[i], usage);
            return 2;
        }
    }
    char *end = NULL;
    long hosts = pos[0] ? strtol(pos[0], &end, 10) : 64;
    const char *xml = pos[1] ? pos[1] : "tests/fixtures/topo/hgx8nic.xml";
    if (pos[0] && (end == pos[0] || *end || hosts < 1 || hosts > NVS_TOPO_MAX_GPUS)) {
        fprintf(stderr, "topo_scale: HOSTS '%s': expected a whole number from 1 to %d\n", pos[0], NVS_TOPO_MAX_GPUS);
        return 2;
    }
    /* every exit goes through `done`, freeing what it holds (the sanitizer build counts a leak as a failure) */
    int rc = 1, n = 0;
    char *text = NULL, *s = NULL;
    nvs_topology *one = NULL, **parts = NULL, *m = NULL, *back = NULL, *sub = NULL;
    int *keep = NULL, *order = NULL, *picked = NULL;
    json_t *jb = NULL;
    if (nvs_read_text_file(xml, 64u << 20, &text) != NVS_OK ||
        nvs_topo_discover_xml_buffer(xml, text, strlen(text), &one) != NVS_OK) {
        fprintf(stderr, "topo_scale: cannot read %s\n", xml);
        rc = 2;
        goto done;
    }
    if ((long)one->ngpus * hosts > NVS_TOPO_MAX_GPUS) {
        fprintf(stderr, "topo_scale: %ld hosts of %d GPUs: more than %d GPUs\n", hosts, one->ngpus, NVS_TOPO_MAX_GPUS);
        rc = 2;
        goto done;
    }
    parts = calloc((size_t)hosts, sizeof *parts);
    keep = malloc((size_t)(one->ngpus ? one->ngpus : 1) * sizeof *keep);
    if (!parts || !keep) goto done;
    for (int i = 0; i < one->ngpus; i++) keep[i] = i;
    for (long h = 0; h < hosts; h++) {
        if (!(parts[h] = nvs_topo_subset(one, keep, one->ngpus))) goto done;
        snprintf(parts[h]->hosts[0].name, sizeof parts[h]->hosts[0].name, "node%04ld", h);
    }
    double t0 = now();
    if (nvs_topo_merge(parts, (int)hosts, &m) != NVS_OK) goto done;
    double t1 = now();
    json_t *j = nvs_topo_to_json(m);
    s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!s) goto done;
    double t2 = now();
    size_t bytes = strlen(s);
    jb = json_loads(s, 0, NULL);
    char err[256] = "";
    if (!jb || nvs_topo_from_json(jb, &back, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "topo_scale: read back: %s\n", err);
        goto done;
    }
    double t3 = now();
    n = m->ngpus;
    int per = one->ngpus;
    order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!order) goto done;
    for (int r = 0; r < n; r++) order[r] = (r % (int)hosts) * per + r / (int)hosts; /* rank r on host r % H */
    sub = nvs_topo_subset(back, order, n);
    double t4 = now();
    nvs_topo_hop hop; /* the bound of a ring over every GPU, as the explanation of each N asks it */
    double ring = sub ? nvs_topo_ring_bound_gbps(sub, order, n, 1, &hop) : -1;
    double t5 = now();
    /* --pick: placement's greedy search for half the GPUs (--placement best), O(N n^2) */
    picked = pick ? malloc((size_t)(n ? n : 1) * sizeof *picked) : NULL;
    int pick_rc = pick && picked && sub && n >= 2 ? nvs_topo_pick_gpus(sub, n / 2, 1, picked) : -1;
    double t6 = now();
    int ok = sub && same_classes(m, back);
    for (int r = 0; ok && r < n; r++)
        for (int q = 0; ok && q < n; q += 7) ok = !strcmp(nvs_topo_pair_class(sub, r, q), nvs_topo_pair_class(m, order[r], order[q]));
    printf("hosts=%ld gpus=%d nics=%d merge_s=%.3f write_s=%.3f json_mb=%.2f read_s=%.3f subset_s=%.3f ring_s=%.3f "
           "ring_gbps=%.6g peak_rss_mb=%ld classes=%s\n", hosts, m->ngpus, m->nnics, t1 - t0, t2 - t1,
           (double)bytes / 1e6, t3 - t2, t4 - t3, t5 - t4, ring, peak_rss_mb(), ok ? "same" : "DIFFERENT");
    if (pick) printf("pick_half_s=%.3f pick_rc=%d\n", t6 - t5, pick_rc);
    rc = ok ? 0 : 1;
done:
    json_decref(jb);
    free(s);
    free(text);
    nvs_topo_free(sub);
    nvs_topo_free(back);
    nvs_topo_free(m);
    for (long h = 0; parts && h < hosts; h++) nvs_topo_free(parts[h]);
    nvs_topo_free(one);
    free(parts);
    free(keep);
    free(order);
    free(picked);
    return rc;
}
