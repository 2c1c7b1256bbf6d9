/* The words of the "why" paragraph for the slowest hop and for the transport NCCL used, and whether NCCL went
 * around that hop (explain_priv.h, explain.h). */
#include <string.h>

#include "core/link_class.h"
#include "explain/explain_priv.h"

/* What the slowest hop is, in words ("the ring crosses the CPU host bridge (PHB)"). */
void nvs_ex_hop_words(sb *s, const nvs_explain_facts *f)
{
    const char *c = f->hop_class;
    switch (nvs_link_class_parse(c, NULL)) {
    case NVS_CLASS_NV: sbf(s, "the ring runs over NVLink (%s)", c); break;
    case NVS_CLASS_PIX: sbf(s, "the ring crosses a single PCIe switch (PIX)"); break;
    case NVS_CLASS_PXB: sbf(s, "the ring crosses several PCIe switches (PXB)"); break;
    case NVS_CLASS_PHB: sbf(s, "the ring crosses the CPU host bridge (PHB)"); break;
    case NVS_CLASS_NODE: sbf(s, "the ring crosses between PCIe host bridges of one NUMA node (NODE)"); break;
    case NVS_CLASS_SYS: sbf(s, "the ring crosses the link between CPU sockets (SYS)"); break;
    case NVS_CLASS_NET: sbf(s, "the ring crosses the network between hosts (NET)"); break;
    default: sbf(s, "the ring's slowest hop is of class %s", c);
    }
}

/* Whether transport list ("P2P+NET", "P2P/IPC+SHM") has word w whole: words are separated by '+', and a word may
 * carry NCCL's detail after a '/' ("NET/Socket"). "NET" is no word of "COLLNET", nor of an unknown "XNET". */
static int word_end(char c) { return c == '\0' || c == '+' || c == '/'; }

static int has_word(const char *list, const char *w)
{
    if (!list) return 0;
    size_t n = strlen(w);
    for (const char *p = strstr(list, w); p; p = strstr(p + 1, w))
        if ((p == list || p[-1] == '+') && word_end(p[n])) return 1;
    return 0;
}

/* The transport words nvscale knows: those NCCL's log names (nccl_log.c, nvs_nccl_summary_transport) */
static int known_word(const char *w, size_t n)
{
    static const char *const known[] = {"P2P", "SHM", "NET", "COLLNET"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i]) == n && !strncmp(w, known[i], n)) return 1;
    return 0;
}

/* Each word of the list that is none of the known ones, as it is: a future NCCL transport, or the log's "other"
 * (connection lines of a transport nvscale does not know), is said, not dropped. Returns how many. */
static int unknown_words(sb *s, const char *t, int first)
{
    int said = 0;
    for (const char *w = t; *w;) {
        size_t n = strcspn(w, "+"), name = strcspn(w, "+/");
        if (name > n) name = n;
        if (n && !known_word(w, name)) {
            if (name == 5 && !strncmp(w, "other", 5))
                sbf(s, "%sanother transport (not one nvscale knows)", first && !said ? "" : " and ");
            else
                sbf(s, "%s%.*s (not a transport nvscale knows)", first && !said ? "" : " and ", (int)n, w);
            said++;
        }
        w += n;
        if (*w == '+') w++;
    }
    return said;
}

/* The collectives NVLS runs: NCCL's src/device/all_reduce.h, all_gather.h and reduce_scatter.h have NCCL_ALGO_NVLS
 * kernels (the switch reduces or multicasts in place of the ring's steps); broadcast, reduce and all-to-all have
 * none, so their ring bound stands */
int nvs_ex_nvls_reduces(const char *coll)
{
    return !strcmp(coll, "all_reduce") || !strcmp(coll, "all_gather") || !strcmp(coll, "reduce_scatter");
}

/* What NCCL used, in words, and whether that wastes the hop. */
void nvs_ex_transport_words(sb *s, const nvs_explain_facts *f)
{
    const char *t = f->transport;
    int hop = f->has_hop && f->hop_class;
    int nvlink = hop && nvs_link_class_is_nvlink(f->hop_class);
    int p2p = has_word(t, "P2P"), shm = has_word(t, "SHM"), net = has_word(t, "NET"), collnet = has_word(t, "COLLNET");
    if (!hop)
        sbf(s, "NCCL used ");
    else if (nvs_explain_hop_unused_by(f->hop_class, t)) /* a word nvscale does not know is no path around it */
        sbf(s, " but NCCL did not use it: it used ");
    else
        sbf(s, " and NCCL used ");
    int first = 1;
    if (p2p) {
        /* a NET hop says nothing of the links inside each host: P2P runs there, over whatever they have */
        int net_hop = hop && !strcmp(f->hop_class, "NET");
        sbf(s, "P2P%s", nvlink ? " over NVLink" : net_hop ? " inside each host" : f->has_hop ? " over PCIe" : "");
        first = 0;
    }
    if (shm) {
        sbf(s, "%sSHM through host memory", first ? "" : " and ");
        first = 0;
    }
    if (net) {
        sbf(s, "%sNET%s%s", first ? "" : " and ", f->net[0] ? "/" : "", f->net);
        first = 0;
    }
    if (collnet) { /* NCCL_COLLNET_ENABLE=1 and a collnet plugin (SHARP): the switches reduce
                      (src/transport/coll_net.cc) */
        sbf(s, "%sCollNet%s%s (in-network reduction through the network plugin)", first ? "" : " and ",
            f->collnet[0] ? "/" : "", f->collnet);
        first = 0;
    }
    if (unknown_words(s, t, first)) first = 0;
    if (first) sbf(s, "%s", t);
    /* NVLS is no connection of a ring: the communicator's "NVLS comm" line (src/transport/nvls.cc), see nccl_log.h */
    if (f->nvls) sbf(s, ", with NVLink SHARP (NVLS: the NVSwitch reduces)");
    /* across hosts the network is the only path: no P2P is no news there */
    int across = f->hop_class && nvs_link_class_parse(f->hop_class, NULL) == NVS_CLASS_NET;
    if (!p2p && f->p2p_disabled_by && !across)
        sbf(s, ", because %s", f->p2p_disabled_by);
    else if (!p2p && f->hop_p2p == 0 && !across)
        sbf(s, ", because CUDA reports no peer-to-peer access between these GPUs (as on GeForce cards)");
}

int nvs_explain_hop_unused_by(const char *hop_class, const char *transport)
{
    /* whole words: a substring test took "NET" in "COLLNET" (and in any unknown word holding it) for NET, and an
     * unknown word holding "P2P" for P2P. CollNet goes through the network plugin (src/transport/coll_net.cc),
     * a path around an NVLink hop as NET is (nccl_log_summary.c's nvs_nl_link_kind: a network link) */
    return hop_class && nvs_link_class_is_nvlink(hop_class) && !has_word(transport, "P2P") &&
           (has_word(transport, "SHM") || has_word(transport, "NET") || has_word(transport, "COLLNET"));
}

int nvs_explain_hop_unused(const nvs_explain_facts *f)
{
    return f->has_hop && nvs_explain_hop_unused_by(f->hop_class, f->transport);
}
