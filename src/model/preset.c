/* Parser and validator of preset text (format: preset.h, docs/model.md). Table-driven: one row per key. */
#include "model/preset.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out_file.h"
#include "core/units.h"

typedef enum { PT_NUM, PT_INT, PT_BOOL, PT_ENUM, PT_STR } ptype;

enum { F_NAME = -1, F_MATCH = -2 };

static const char *const nvlink_names[] = {"none", "pairs", "nvswitch", NULL};
static const char *const class_names[] = {"NV", "PIX", "PXB", "PHB", "NODE", "SYS", NULL};
static const char *const cpu_names[] = {"unknown", "intel", "amd", "arm", NULL};

typedef struct {
    nvs_preset_kind kind;
    const char *key;
    int field;
    ptype type;
    double lo, hi;     /* inclusive range of a number */
    int need_src;      /* a hardware fact: the SOURCE string is mandatory */
    int required;      /* 1 = always; 0 = optional or required only by a cross-check below */
    const char *const *enums;
} keydef;

/* Ranges are sanity bounds that catch typos (a unit slip of 1000x), not claims about hardware. */
static const keydef keys[] = {
    {NVS_PK_GPU, "name", F_NAME, PT_STR, 0, 0, 0, 1, NULL},
    {NVS_PK_GPU, "match", F_MATCH, PT_STR, 0, 0, 0, 1, NULL},
    {NVS_PK_GPU, "fp32_tflops", NVS_G_FP32_TFLOPS, PT_NUM, 0.1, 1e5, 1, 1, NULL},
    {NVS_PK_GPU, "tf32_tflops", NVS_G_TF32_TFLOPS, PT_NUM, 0.1, 1e5, 1, 1, NULL},
    {NVS_PK_GPU, "bf16_tflops", NVS_G_BF16_TFLOPS, PT_NUM, 0.1, 1e5, 1, 1, NULL},
    {NVS_PK_GPU, "mem_gbps", NVS_G_MEM_GBPS, PT_NUM, 1, 1e6, 1, 1, NULL},
    {NVS_PK_GPU, "memory_bytes", NVS_G_MEMORY_BYTES, PT_NUM, 1e8, 1e14, 1, 1, NULL},
    {NVS_PK_GPU, "p2p_pcie", NVS_G_P2P_PCIE, PT_BOOL, 0, 1, 1, 1, NULL},
    {NVS_PK_GPU, "nvlink_gen", NVS_G_NVLINK_GEN, PT_INT, 0, 9, 1, 0, NULL},
    {NVS_PK_GPU, "nvlink_links", NVS_G_NVLINK_LINKS, PT_INT, 0, 64, 1, 1, NULL},
    {NVS_PK_GPU, "nvlink_gbps_per_link", NVS_G_NVLINK_GBPS, PT_NUM, 0.1, 1e4, 1, 0, NULL},
    {NVS_PK_GPU, "pcie_gen", NVS_G_PCIE_GEN, PT_INT, 1, 9, 1, 1, NULL},
    {NVS_PK_GPU, "compute_capability", NVS_G_COMPUTE_CAP, PT_NUM, 1, 20, 1, 0, NULL},

    {NVS_PK_MACHINE, "name", F_NAME, PT_STR, 0, 0, 0, 1, NULL},
    {NVS_PK_MACHINE, "gpus", NVS_M_GPUS, PT_INT, 1, 64, 0, 1, NULL},
    {NVS_PK_MACHINE, "sockets", NVS_M_SOCKETS, PT_INT, 1, 8, 0, 1, NULL},
    {NVS_PK_MACHINE, "gpus_per_switch", NVS_M_GPUS_PER_SWITCH, PT_INT, 0, 64, 0, 1, NULL},
    {NVS_PK_MACHINE, "switch_cascade", NVS_M_SWITCH_CASCADE, PT_BOOL, 0, 1, 0, 0, NULL},
    {NVS_PK_MACHINE, "nvlink", NVS_M_NVLINK, PT_ENUM, 0, 0, 0, 0, nvlink_names},
    {NVS_PK_MACHINE, "p2p_level", NVS_M_P2P_LEVEL, PT_ENUM, 0, 0, 0, 0, class_names},
    {NVS_PK_MACHINE, "gpu_link_gbps", NVS_M_GPU_LINK_GBPS, PT_NUM, 0.1, 1e4, 1, 1, NULL},
    {NVS_PK_MACHINE, "uplink_gbps", NVS_M_UPLINK_GBPS, PT_NUM, 0.1, 1e4, 1, 0, NULL},
    {NVS_PK_MACHINE, "socket_gbps", NVS_M_SOCKET_GBPS, PT_NUM, 0.1, 1e4, 1, 0, NULL},
    {NVS_PK_MACHINE, "shm_gbps", NVS_M_SHM_GBPS, PT_NUM, 0.1, 1e4, 1, 1, NULL},
    {NVS_PK_MACHINE, "nvlink_hop_us", NVS_M_NVLINK_HOP_US, PT_NUM, 0, 1e4, 1, 0, NULL},
    {NVS_PK_MACHINE, "p2p_hop_us", NVS_M_P2P_HOP_US, PT_NUM, 0, 1e4, 1, 1, NULL},
    {NVS_PK_MACHINE, "shm_hop_us", NVS_M_SHM_HOP_US, PT_NUM, 0, 1e4, 1, 1, NULL},
    {NVS_PK_MACHINE, "coll_base_us", NVS_M_COLL_BASE_US, PT_NUM, 0, 1e5, 1, 1, NULL},
    {NVS_PK_MACHINE, "nics", NVS_M_NICS, PT_INT, 1, 64, 0, 0, NULL},
    {NVS_PK_MACHINE, "nvlink_eff", NVS_M_NVLINK_EFF, PT_NUM, 0.01, 1, 1, 0, NULL},
    {NVS_PK_MACHINE, "cpu", NVS_M_CPU, PT_ENUM, 0, 0, 0, 0, cpu_names},
    {NVS_PK_MACHINE, "host_gbps", NVS_M_HOST_GBPS, PT_NUM, 0.01, 1e5, 1, 0, NULL},
    {NVS_PK_MACHINE, "xsocket_shm_cost", NVS_M_XSOCKET_SHM_COST, PT_NUM, 0.1, 100, 1, 0, NULL},
    {NVS_PK_MACHINE, "host_mem_gbps", NVS_M_HOST_MEM_GBPS, PT_NUM, 0.1, 1e5, 1, 0, NULL},
    {NVS_PK_MACHINE, "nvls_gbps", NVS_M_NVLS_GBPS, PT_NUM, 0.1, 1e5, 1, 0, NULL},
    {NVS_PK_MACHINE, "net_local_gbps", NVS_M_NET_LOCAL_GBPS, PT_NUM, 0.01, 1e4, 1, 0, NULL},
    {NVS_PK_MACHINE, "net_local_hop_us", NVS_M_NET_LOCAL_HOP_US, PT_NUM, 0, 1e5, 1, 0, NULL},

    {NVS_PK_NET, "name", F_NAME, PT_STR, 0, 0, 0, 1, NULL},
    {NVS_PK_NET, "gbps", NVS_N_GBPS, PT_NUM, 0.01, 1e4, 1, 1, NULL},
    {NVS_PK_NET, "hop_us", NVS_N_HOP_US, PT_NUM, 0, 1e5, 1, 1, NULL},
    {NVS_PK_NET, "sharp", NVS_N_SHARP, PT_BOOL, 0, 1, 1, 0, NULL},
};
static const int nkeys = (int)(sizeof keys / sizeof keys[0]);

const char *nvs_class_name(int cls) { return (cls >= 0 && cls < NVS_CLS_COUNT) ? class_names[cls] : "?"; }

const char *nvs_preset_kind_name(nvs_preset_kind k)
{
    static const char *const n[] = {"gpu", "machine", "net"};
    return (k >= 0 && k < NVS_PK_COUNT) ? n[k] : "?";
}

const char *nvs_preset_key_name(nvs_preset_kind k, int field)
{
    for (int i = 0; i < nkeys; i++)
        if (keys[i].kind == k && keys[i].field == field) return keys[i].key;
    return "?";
}

int nvs_preset_value_form(nvs_preset_kind k, int field, double v, const char **name)
{
    *name = NULL;
    for (int i = 0; i < nkeys; i++) {
        if (keys[i].kind != k || keys[i].field != field) continue;
        if (keys[i].type == PT_INT || keys[i].type == PT_BOOL) return NVS_PV_INTEGER;
        if (keys[i].type != PT_ENUM) return NVS_PV_NUMBER;
        for (int e = 0; keys[i].enums[e]; e++)
            if (e == (int)v && v >= 0) *name = keys[i].enums[e];
        return NVS_PV_NAME;
    }
    return NVS_PV_NUMBER;
}

/* The fastest network adapter, per direction, in GB/s: 1.6 Tb/s / 8. NVIDIA's ConnectX-8 SuperNIC runs 800 Gb/s
 * (docs.nvidia.com/networking, ConnectX-8 SuperNIC User Manual, Introduction: "up to 800 gigabits per second");
 * its successor ConnectX-9, announced for Vera Rubin (NVIDIA GTC DC, October 2025), 1.6 Tb/s per GPU. A net's
 * `gbps` is GB/s (bytes, docs/model.md); a value above this one can only be a rate in Gb/s (bits): 400 for a
 * 400 Gb/s NDR adapter would model 3.2 Tb/s, eight times the card. */
#define NIC_MAX_GBYTES_PER_S 200.0

static const keydef *find_key(nvs_preset_kind k, const char *key)
{
    for (int i = 0; i < nkeys; i++)
        if (keys[i].kind == k && !strcmp(keys[i].key, key)) return &keys[i];
    return NULL;
}

/* --- list helpers ---------------------------------------------------------------------------------------- */

static int list_push(nvs_preset_list *l, const nvs_preset *p)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        nvs_preset *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *p;
    return 0;
}

void nvs_presets_free(nvs_presets *ps)
{
    for (int k = 0; k < NVS_PK_COUNT; k++) {
        free(ps->kind[k].v);
        ps->kind[k].v = NULL;
        ps->kind[k].n = ps->kind[k].cap = 0;
    }
}

const nvs_preset *nvs_presets_find(const nvs_presets *ps, nvs_preset_kind k, const char *id)
{
    if (k < 0 || k >= NVS_PK_COUNT || !id) return NULL;
    for (int i = 0; i < ps->kind[k].n; i++)
        if (!strcmp(ps->kind[k].v[i].id, id)) return &ps->kind[k].v[i];
    return NULL;
}

/* Whether `m` ends `name` (trailing blanks aside) as whole words: it does not start inside a letter or digit run,
 * so that "H200" is not found in "NVIDIA GH200 480GB" (a Grace Hopper superchip, another memory), and nothing
 * but blanks follows it, because NVIDIA names a sibling card by adding words after the base card's name:
 * "NVIDIA H200 NVL" (PCIe card, NVLink bridges), "NVIDIA GeForce RTX 3090 Ti" (84 SMs, not 82), "RTX 4090 D",
 * "... MIG 1g.10gb" (a slice), "L40S-48Q" (a vGPU profile). Words before it may differ ("NVIDIA GeForce" or,
 * from older drivers, "GeForce"). */
static int ends_with_words(const char *name, const char *m)
{
    size_t len = strlen(m), n = strlen(name);
    while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == '\t')) n--;
    if (!len || len > n || strncmp(name + n - len, m, len)) return 0;
    const char *at = name + n - len;
    return !(at > name && isalnum((unsigned char)at[-1]));
}

const nvs_preset *nvs_presets_match_gpu(const nvs_presets *ps, const char *device_name)
{
    const nvs_preset *best = NULL;
    size_t best_len = 0;
    if (!device_name) return NULL;
    for (int i = 0; i < ps->kind[NVS_PK_GPU].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_GPU].v[i];
        size_t len = strlen(p->match);
        if (len && len > best_len && ends_with_words(device_name, p->match)) {
            best = p;
            best_len = len;
        }
    }
    return best;
}

/* --- tokenizer ------------------------------------------------------------------------------------------- */

#define MAXTOK 3
typedef struct {
    char *tok[MAXTOK]; /* KEY VALUE (and one more word, which is an error except for text keys) */
    int n;
    char *rest;        /* everything after KEY, blanks trimmed, before any '|' or '#' */
    char *src;         /* after '|', trimmed; NULL if no '|' */
} tokens;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) *--e = '\0';
    return s;
}

/* Splits `line` in place. Returns NULL or a message. */
static const char *tokenize(char *line, tokens *t)
{
    t->n = 0;
    t->rest = NULL;
    t->src = NULL;
    char *bar = strchr(line, '|');
    if (bar) {
        *bar = '\0';
        t->src = trim(bar + 1);
    }
    char *hash = strchr(line, '#');
    if (hash) {
        if (bar) return "'#' before the source: a comment cannot hold a source";
        *hash = '\0';
    }
    for (char *p = line; *p; p++)
        if (*p == '"') return "quotes are not part of the format: text keys take the rest of the line";
    char *p = trim(line);
    if (!*p) return bar ? "a source without a key" : NULL;
    /* first word = key; rest = the value text */
    char *sp = p;
    while (*sp && *sp != ' ' && *sp != '\t') sp++;
    t->tok[t->n++] = p;
    if (*sp) {
        *sp = '\0';
        t->rest = trim(sp + 1);
        /* split the rest into at most two more words, on a copy-free basis: count only */
        char *q = t->rest;
        while (*q && t->n < MAXTOK) {
            t->tok[t->n++] = q;
            while (*q && *q != ' ' && *q != '\t') q++;
            while (*q == ' ' || *q == '\t') q++;
        }
    }
    return NULL;
}

static int valid_id(const char *s)
{
    if (!*s || strlen(s) >= 48) return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.'))
            return 0;
    return 1;
}

/* --- validation of one finished block ----------------------------------------------------------------------- */

static void set_default(nvs_preset *p, int field, double v, const char *src)
{
    if (p->f[field].set) return;
    p->f[field].v = v;
    p->f[field].set = 1;
    snprintf(p->f[field].src, sizeof p->f[field].src, "%s", src);
}

/* Returns NULL or a message (written to buf). */
static const char *check_block(nvs_preset *p, char *buf, size_t len)
{
    for (int i = 0; i < nkeys; i++) {
        const keydef *k = &keys[i];
        if (k->kind != p->kind || !k->required) continue;
        int have = k->field == F_NAME ? p->name[0] != 0 : k->field == F_MATCH ? p->match[0] != 0 : p->f[k->field].set;
        if (!have) {
            snprintf(buf, len, "%s '%s' lacks the required key '%s'", nvs_preset_kind_name(p->kind), p->id, k->key);
            return buf;
        }
    }
#define NEED(field, why)                                                                                    \
    do {                                                                                                    \
        if (!p->f[field].set) {                                                                             \
            snprintf(buf, len, "%s '%s' needs '%s' (%s)", nvs_preset_kind_name(p->kind), p->id,            \
                     nvs_preset_key_name(p->kind, field), why);                                             \
            return buf;                                                                                     \
        }                                                                                                   \
    } while (0)
    if (p->kind == NVS_PK_GPU) {
        if (p->f[NVS_G_NVLINK_LINKS].v > 0) {
            NEED(NVS_G_NVLINK_GEN, "it has NVLink links");
            NEED(NVS_G_NVLINK_GBPS, "it has NVLink links");
        }
        set_default(p, NVS_G_NVLINK_GEN, 0, "no NVLink");
        set_default(p, NVS_G_NVLINK_GBPS, 0, "no NVLink");
        /* 0: not stated; the model then assumes no NVLink SHARP (model.h, nvs_gpu_nvls) */
        set_default(p, NVS_G_COMPUTE_CAP, 0, "not stated");
    } else if (p->kind == NVS_PK_MACHINE) {
        int gpus = (int)p->f[NVS_M_GPUS].v, sockets = (int)p->f[NVS_M_SOCKETS].v;
        int gps = (int)p->f[NVS_M_GPUS_PER_SWITCH].v;
        set_default(p, NVS_M_SWITCH_CASCADE, 0, "default: switches hang off CPU root ports");
        set_default(p, NVS_M_NVLINK, NVS_NVLINK_NONE, "default: no NVLink");
        /* -1: no override (NCCL_P2P_LEVEL unset): NCCL's own rule for the CPU and NCCL version decides */
        set_default(p, NVS_M_P2P_LEVEL, -1,
                    "NCCL's rule for the CPU and NCCL version (src/graph/paths.cc, ncclTopoCheckP2p; model.h)");
        set_default(p, NVS_M_CPU, NVS_CPU_UNKNOWN, "not stated: NCCL's modern default rule (PXB)");
        set_default(p, NVS_M_HOST_GBPS, 0, "no host budget: SHM flows limited by their links and shm_gbps only");
        set_default(p, NVS_M_XSOCKET_SHM_COST, 1, "default: a cross-socket SHM flow loads each socket once");
        set_default(p, NVS_M_HOST_MEM_GBPS, 0, "not measured");
        set_default(p, NVS_M_NVLS_GBPS, 0, "no NVLink SHARP");
        /* 0: the sockets' rate depends on the host (its CPU copies every byte through the kernel's loopback) and
         * no formula gives it; a machine that has not measured it does not model NET between its own GPUs */
        set_default(p, NVS_M_NET_LOCAL_GBPS, 0, "not measured: NET between the node's own GPUs is not modelled");
        set_default(p, NVS_M_NET_LOCAL_HOP_US, 0, "not measured");
        if (p->f[NVS_M_NVLS_GBPS].v > 0 && (int)p->f[NVS_M_NVLINK].v != NVS_NVLINK_SWITCH) {
            snprintf(buf, len, "machine '%s': nvls_gbps needs an NVSwitch (nvlink nvswitch)", p->id);
            return buf;
        }
        set_default(p, NVS_M_NICS, 1, "default: one NIC per node");
        if (gpus % sockets) {
            snprintf(buf, len, "machine '%s': gpus %d is not a multiple of sockets %d", p->id, gpus, sockets);
            return buf;
        }
        if (gps > 0 && (gpus / sockets) % gps) {
            snprintf(buf, len, "machine '%s': %d GPUs per socket do not fill switches of %d", p->id,
                     gpus / sockets, gps);
            return buf;
        }
        if (gps > 0) NEED(NVS_M_UPLINK_GBPS, "it has PCIe switches");
        if (gps == 0 && p->f[NVS_M_SWITCH_CASCADE].v > 0) {
            snprintf(buf, len, "machine '%s': switch_cascade 1 needs gpus_per_switch > 0", p->id);
            return buf;
        }
        if (sockets > 1) NEED(NVS_M_SOCKET_GBPS, "it has more than one socket");
        if ((int)p->f[NVS_M_NVLINK].v != NVS_NVLINK_NONE) {
            NEED(NVS_M_NVLINK_HOP_US, "it has NVLink");
            NEED(NVS_M_NVLINK_EFF, "it has NVLink");
        }
        if ((int)p->f[NVS_M_NVLINK].v == NVS_NVLINK_PAIRS && gpus % 2) {
            snprintf(buf, len, "machine '%s': nvlink pairs needs an even number of GPUs", p->id);
            return buf;
        }
        set_default(p, NVS_M_UPLINK_GBPS, 0, "no switches");
        set_default(p, NVS_M_SOCKET_GBPS, 0, "one socket");
        set_default(p, NVS_M_NVLINK_HOP_US, 0, "no NVLink");
        set_default(p, NVS_M_NVLINK_EFF, 1, "no NVLink");
    } else if (p->kind == NVS_PK_NET) {
        set_default(p, NVS_N_SHARP, 0, "no in-network reduction");
    }
#undef NEED
    return NULL;
}

/* --- the parser -------------------------------------------------------------------------------------------- */

static void errf(char *err, size_t errlen, const char *origin, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void errf(char *err, size_t errlen, const char *origin, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen) snprintf(err, errlen, "%s:%d: %s", origin, line, msg);
}

/* Length of the first word of `s`. */
static size_t word_len(const char *s)
{
    size_t n = 0;
    while (s[n] && s[n] != ' ' && s[n] != '\t') n++;
    return n;
}

static const char *parse_value(const keydef *k, const tokens *t, nvs_preset *p, char *buf, size_t len)
{
    if (k->type == PT_STR) {
        char *dst = k->field == F_NAME ? p->name : p->match;
        size_t cap = k->field == F_NAME ? sizeof p->name : sizeof p->match;
        if (t->src) {
            snprintf(buf, len, "'%s' takes no source", k->key);
            return buf;
        }
        if (strlen(t->rest) >= cap) {
            snprintf(buf, len, "'%s' must be at most %zu characters", k->key, cap - 1);
            return buf;
        }
        if (dst[0]) {
            snprintf(buf, len, "'%s' given twice", k->key);
            return buf;
        }
        snprintf(dst, cap, "%s", t->rest);
        return NULL;
    }
    nvs_pval *f = &p->f[k->field];
    if (f->set) {
        snprintf(buf, len, "'%s' given twice", k->key);
        return buf;
    }
    if (t->n > 2) {
        snprintf(buf, len, "'%s' takes one value, then '| SOURCE' (got '%s')", k->key, t->rest);
        return buf;
    }
    char val[64];
    size_t vl = word_len(t->rest);
    if (vl >= sizeof val) { /* never cut: a cut number would read as another one */
        snprintf(buf, len, "'%s': value longer than %zu characters", k->key, sizeof val - 1);
        return buf;
    }
    memcpy(val, t->rest, vl);
    val[vl] = '\0';
    double v = 0;
    if (k->type == PT_ENUM) {
        /* "NV" is not a P2P level; "unknown" is the default of `cpu`, not a value to write */
        int found = -1, first = (k->enums == class_names || k->enums == cpu_names);
        for (int i = first; k->enums[i]; i++)
            if (!strcmp(k->enums[i], val)) found = i;
        if (found < 0) {
            size_t o = (size_t)snprintf(buf, len, "'%s' must be one of", k->key);
            for (int i = first; k->enums[i] && o < len; i++)
                o += (size_t)snprintf(buf + o, len - o, " %s", k->enums[i]);
            if (o < len) snprintf(buf + o, len - o, ", not '%s'", val);
            return buf;
        }
        v = found;
    } else if (nvs_parse_double(val, &v) != 0) {
        snprintf(buf, len, "'%s' is not a number: '%s'", k->key, val);
        return buf;
    } else {
        if ((k->type == PT_INT || k->type == PT_BOOL) && v != floor(v)) {
            snprintf(buf, len, "'%s' must be an integer, not '%s'", k->key, val);
            return buf;
        }
        if (v < k->lo || v > k->hi) {
            snprintf(buf, len, "'%s' = %s is outside %g..%g", k->key, val, k->lo, k->hi);
            return buf;
        }
        if (k->kind == NVS_PK_NET && k->field == NVS_N_GBPS && v > NIC_MAX_GBYTES_PER_S) {
            snprintf(buf, len,
                     "'%s' = %s GB/s per direction (%g Gb/s) is faster than any NIC (the fastest, NVIDIA ConnectX-9, "
                     "runs 1.6 Tb/s = %g GB/s): the key is GB/s (bytes); if %s is Gb/s, write %g (%s / 8), times "
                     "the fraction of it the adapter achieves",
                     k->key, val, v * 8, NIC_MAX_GBYTES_PER_S, val, v / 8, val);
            return buf;
        }
    }
    if (t->src) {
        if (!*t->src) {
            snprintf(buf, len, "'%s': empty source after '|'", k->key);
            return buf;
        }
        if (strlen(t->src) >= sizeof f->src) {
            snprintf(buf, len, "'%s': source longer than %zu characters", k->key, sizeof f->src - 1);
            return buf;
        }
        snprintf(f->src, sizeof f->src, "%s", t->src);
    } else if (k->need_src) {
        snprintf(buf, len, "'%s' needs its source: '%s %s | where this number comes from'", k->key, k->key, val);
        return buf;
    }
    f->v = v;
    f->set = 1;
    return NULL;
}

nvs_result_t nvs_presets_parse(nvs_presets *ps, const char *text, const char *origin, char *err, size_t errlen)
{
    nvs_presets tmp = {0};
    nvs_preset cur;
    int in_block = 0, block_line = 0, lineno = 0, header = 0;
    char msg[512];
    nvs_result_t res = NVS_ERR_INPUT;
    char *copy = strdup(text ? text : "");
    if (!copy) return NVS_ERR_NOMEM;

    for (char *line = copy, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (!next && !*line && lineno > 0) break; /* after the last newline: not a line */
        lineno++;
        size_t ll = strlen(line);
        if (ll && line[ll - 1] == '\r') line[--ll] = '\0'; /* CRLF files */
        if (ll > NVS_LINE_MAX) {
            errf(err, errlen, origin, lineno, "line longer than %d characters", NVS_LINE_MAX);
            goto out;
        }
        for (size_t i = 0; i < ll; i++)
            if (((unsigned char)line[i] < ' ' && line[i] != '\t') || line[i] == 0x7f) {
                errf(err, errlen, origin, lineno, "control character 0x%02x in column %zu (not a text file?)",
                     (unsigned)(unsigned char)line[i], i + 1);
                goto out;
            }
        tokens t;
        const char *e = tokenize(line, &t);
        if (e) {
            errf(err, errlen, origin, lineno, "%s", e);
            goto out;
        }
        if (t.n == 0) continue;
        if (!header) {
            long ver = 0;
            if (t.n != 2 || t.src || strcmp(t.tok[0], NVS_PRESETS_HEADER) || nvs_parse_long(t.rest, &ver) ||
                ver != NVS_PRESETS_VERSION) {
                errf(err, errlen, origin, lineno, "expected the header '%s %d' first", NVS_PRESETS_HEADER,
                     NVS_PRESETS_VERSION);
                goto out;
            }
            header = 1;
            continue;
        }
        if (!in_block) {
            nvs_preset_kind k = NVS_PK_COUNT;
            for (int i = 0; i < NVS_PK_COUNT; i++)
                if (!strcmp(t.tok[0], nvs_preset_kind_name((nvs_preset_kind)i))) k = (nvs_preset_kind)i;
            if (k == NVS_PK_COUNT) {
                errf(err, errlen, origin, lineno, "expected 'gpu ID', 'machine ID' or 'net ID', not '%s'",
                     t.tok[0]);
                goto out;
            }
            if (t.n != 2 || t.src || !valid_id(t.rest)) {
                errf(err, errlen, origin, lineno, "'%s' needs one ID of [a-z0-9._-] (at most 47 characters)",
                     t.tok[0]);
                goto out;
            }
            const nvs_preset *dup = nvs_presets_find(&tmp, k, t.rest);
            if (dup) {
                errf(err, errlen, origin, lineno, "%s '%s' defined twice (first at %s)", t.tok[0], t.rest,
                     dup->origin);
                goto out;
            }
            memset(&cur, 0, sizeof cur);
            cur.kind = k;
            snprintf(cur.id, sizeof cur.id, "%s", t.rest);
            snprintf(cur.origin, sizeof cur.origin, "%s:%d", origin, lineno);
            in_block = 1;
            block_line = lineno;
            continue;
        }
        if (!strcmp(t.tok[0], "end")) {
            if (t.n != 1 || t.src) {
                errf(err, errlen, origin, lineno, "'end' takes nothing after it");
                goto out;
            }
            e = check_block(&cur, msg, sizeof msg);
            if (e) {
                errf(err, errlen, origin, block_line, "%s", e);
                goto out;
            }
            if (list_push(&tmp.kind[cur.kind], &cur)) {
                res = NVS_ERR_NOMEM;
                goto out;
            }
            in_block = 0;
            continue;
        }
        const keydef *k = find_key(cur.kind, t.tok[0]);
        if (!k) {
            errf(err, errlen, origin, lineno, "unknown %s key '%s' (docs/model.md lists them)",
                 nvs_preset_kind_name(cur.kind), t.tok[0]);
            goto out;
        }
        if (t.n < 2) {
            errf(err, errlen, origin, lineno, "'%s' needs a value", k->key);
            goto out;
        }
        e = parse_value(k, &t, &cur, msg, sizeof msg);
        if (e) {
            errf(err, errlen, origin, lineno, "%s", e);
            goto out;
        }
    }
    if (!header) {
        errf(err, errlen, origin, lineno ? lineno : 1, "empty: expected the header '%s %d'", NVS_PRESETS_HEADER,
             NVS_PRESETS_VERSION);
        goto out;
    }
    if (in_block) {
        errf(err, errlen, origin, block_line, "%s '%s' has no 'end'", nvs_preset_kind_name(cur.kind), cur.id);
        goto out;
    }
    /* merge: replace by id, else append. Reserve first so that a failure leaves `ps` unchanged. */
    for (int k = 0; k < NVS_PK_COUNT; k++) {
        nvs_preset_list *l = &ps->kind[k];
        int need = l->n + tmp.kind[k].n;
        if (need > l->cap) {
            nvs_preset *v = realloc(l->v, (size_t)need * sizeof *v);
            if (!v) {
                res = NVS_ERR_NOMEM;
                goto out;
            }
            l->v = v;
            l->cap = need;
        }
    }
    for (int k = 0; k < NVS_PK_COUNT; k++)
        for (int i = 0; i < tmp.kind[k].n; i++) {
            nvs_preset *old = (nvs_preset *)nvs_presets_find(ps, (nvs_preset_kind)k, tmp.kind[k].v[i].id);
            if (old)
                *old = tmp.kind[k].v[i];
            else
                ps->kind[k].v[ps->kind[k].n++] = tmp.kind[k].v[i];
        }
    res = NVS_OK;
out:
    nvs_presets_free(&tmp);
    free(copy);
    return res;
}

nvs_result_t nvs_presets_load_file(nvs_presets *ps, const char *path, char *err, size_t errlen)
{
    char *text = NULL;
    /* 4 MiB: far more than any preset file; protects against pointing at a disk image */
    nvs_result_t r = nvs_read_text_file(path, 4u << 20, &text);
    if (r != NVS_OK) { /* nvs_read_text_file said why: one message, not two */
        if (err && errlen) err[0] = '\0';
        return NVS_ERR_INPUT;
    }
    r = nvs_presets_parse(ps, text, nvs_input_name(path), err, errlen); /* "-": "standard input" */
    free(text);
    return r;
}

nvs_result_t nvs_presets_load_builtin(nvs_presets *ps, char *err, size_t errlen)
{
    for (const nvs_preset_family *f = nvs_builtin_preset_families; f->family; f++) {
        char origin[64];
        snprintf(origin, sizeof origin, "builtin %s", f->family);
        NVS_CHECK(nvs_presets_parse(ps, f->text, origin, err, errlen));
    }
    return NVS_OK;
}
