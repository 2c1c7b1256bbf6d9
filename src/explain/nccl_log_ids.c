/* PURE: what the brackets of a channel line hold (NVML device indices or PCI bus ids, by NCCL's version), and
 * the devices read from them. Part of the NCCL log parser (nccl_log.c); formats in nccl_log.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "explain/nccl_log_priv.h"

/* 1 if version `v` ("2.18.3") is at least maj.min.patch */
static int version_at_least(const char *v, int maj, int min, int patch)
{
    int a[3] = {0, 0, 0};
    for (int i = 0; i < 3 && isdigit((unsigned char)*v); i++) {
        a[i] = (int)strtol(v, (char **)&v, 10);
        if (*v == '.') v++;
    }
    int want[3] = {maj, min, patch};
    for (int i = 0; i < 3; i++)
        if (a[i] != want[i]) return a[i] > want[i];
    return 1;
}

/* What the brackets of `c`'s channel lines hold (c NULL: an orphan): NCCL 2.18.3 changed them from the PCI bus id to
 * the nvmlDev (src/transport/{p2p,shm,net}.cc, "%d[%lx]" -> "%d[%d]") and added "nvmlDev" to the Init START and
 * COMPLETE lines (src/init.cc) in the same release, so a communicator's own line says it for its channels, then
 * the log's version line (rank 0's process alone prints it, so the other processes' files lack it). */
int nvs_nl_ids_of(const nvs_nccl_log *log, const nvs_nccl_comm *c)
{
    if (c && c->nvml_dev >= 0) return NVS_NCCL_IDS_NVML;
    if (c && c->complete) return NVS_NCCL_IDS_BUS; /* an Init COMPLETE without nvmlDev: before 2.18.3 */
    if (log->version[0] && !log->version_conflict)
        return version_at_least(log->version, 2, 18, 3) ? NVS_NCCL_IDS_NVML : NVS_NCCL_IDS_BUS;
    return NVS_NCCL_IDS_UNKNOWN;
}

static int id_dev(const char *id, int ids)
{
    size_t n = strlen(id);
    if (ids != NVS_NCCL_IDS_NVML || !n || n > 9 || strspn(id, "0123456789") != n) return -1;
    return atoi(id);
}

/* from_dev/to_dev of a channel line by what its brackets hold. Hex letters are a bus id whatever the version. */
void nvs_nl_resolve_ids(nvs_nccl_conn *cn, int ids)
{
    size_t nf = strlen(cn->from_id), nt = strlen(cn->to_id);
    if ((nf && strspn(cn->from_id, "0123456789") != nf) || (nt && strspn(cn->to_id, "0123456789") != nt))
        ids = NVS_NCCL_IDS_BUS;
    cn->ids = ids;
    cn->from_dev = id_dev(cn->from_id, ids);
    cn->to_dev = id_dev(cn->to_id, ids);
}

/* Again for every channel line, once more is known (a version line, an Init COMPLETE of another file) */
void nvs_nl_resolve_all(nvs_nccl_log *log)
{
    for (size_t i = 0; i < log->ncomms; i++) {
        int ids = nvs_nl_ids_of(log, &log->comms[i]);
        for (size_t k = 0; k < log->comms[i].nconns; k++) nvs_nl_resolve_ids(&log->comms[i].conns[k], ids);
    }
    int ids = nvs_nl_ids_of(log, NULL);
    for (size_t k = 0; k < log->norphans; k++) nvs_nl_resolve_ids(&log->orphans[k], ids);
}
