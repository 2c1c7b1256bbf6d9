/* The values of the flags of scaling and placement, topology and copies, process and output. */
#include "core/config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/options_priv.h"
#include "core/out_file.h"
#include "core/units.h"
#include "run/phases.h"

int nvs_opt_general(nvs_opt_parse *ps, int opt, const char *flag, const char *a)
{
    nvs_config *c = ps->c;
    const char *sub = ps->sub;
    switch (opt) {
    case OPT_HOST: c->p2p_host = 1; break;
    case OPT_BACKEND:
        if (!strcasecmp(a, "nccl")) c->backend = NVS_BACKEND_NCCL;
        else if (!strcasecmp(a, "mpi")) c->backend = NVS_BACKEND_MPI;
        else if (!strcasecmp(a, "auto")) c->backend = NVS_BACKEND_AUTO;
        else return nvs_opt_bad(sub, flag, a, "expected nccl, mpi or auto");
        c->backend_explicit = c->backend != NVS_BACKEND_AUTO;
        break;
    case OPT_GPUS: {
        char why[160];
        if (nvs_opt_gpu_counts(a, c, why, sizeof why)) return nvs_opt_bad(sub, flag, a, why);
        break;
    }
    case OPT_PLACEMENT:
        if (!strcasecmp(a, "first")) c->placement = NVS_PLACE_FIRST;
        else if (!strcasecmp(a, "best")) c->placement = NVS_PLACE_BEST;
        else if (!strcasecmp(a, "worst")) c->placement = NVS_PLACE_WORST;
        else return nvs_opt_bad(sub, flag, a, "expected first, best or worst");
        break;
    case OPT_TIMEOUT:
        /* at least 1 s: a shorter wait cannot tell a stall from MPI and NCCL start-up */
        if (nvs_parse_double(a, &c->timeout_s) || c->timeout_s < 1 || c->timeout_s > 86400)
            return nvs_opt_bad(sub, flag, a, "expected seconds from 1 to 86400");
        break;
    case OPT_FORMAT:
        if (!strcasecmp(a, "table")) c->format = NVS_FMT_TABLE;
        else if (!strcasecmp(a, "json")) c->format = NVS_FMT_JSON;
        else if (!strcasecmp(a, "csv")) c->format = NVS_FMT_CSV;
        else return nvs_opt_bad(sub, flag, a, "expected table, json or csv");
        break;
    case OPT_OUT: {
        const char *dash = nvs_out_dash_why(a, 1);
        if (!*a || strlen(a) >= sizeof c->out_dir - 64) return nvs_opt_bad(sub, flag, a, "expected a directory path");
        if (dash) return nvs_opt_bad(sub, flag, a, dash);
        snprintf(c->out_dir, sizeof c->out_dir, "%s", a);
        /* "runs/x/" names the directory runs/x: without the slash, DIR.partial and the final rename agree */
        for (size_t l = strlen(c->out_dir); l > 1 && c->out_dir[l - 1] == '/'; l--) c->out_dir[l - 1] = '\0';
        break;
    }
    case OPT_NO_SAVE: c->save = 0; break;
    case OPT_EMULATE:
        /* the world size is known only once launched: the runtime checks that K divides it */
        if (nvs_opt_int_range(a, 1, 1 << 20, &c->emulate_nodes))
            return nvs_opt_bad(sub, flag, a,
                               "expected a number of virtual hosts >= 1 that divides the number of ranks");
        break;
    case OPT_NO_NCCL_LOG: c->nccl_log = 0; break;
    case OPT_XML:
        if (!*a || strlen(a) >= sizeof c->hwloc_xml) return nvs_opt_bad(sub, flag, a, "expected a file");
        /* "-": the XML on standard input (topo/topo_discover.c reads it whole; topo's only input) */
        snprintf(c->hwloc_xml, sizeof c->hwloc_xml, "%s", a);
        break;
    case OPT_COPY_BYTES:
        if (nvs_opt_size(sub, flag, a, 4, &c->copy_bytes, "expected a size from 4 to 1T such as 256M"))
            return NVS_ERR_USAGE;
        break;
    case OPT_COPY_ITERS:
        if (nvs_opt_int_range(a, 1, 1000000, &c->copy_iters)) return nvs_opt_bad(sub, flag, a, "expected 1..1000000");
        break;
    case 'q': c->quiet = 1; break;
    case 'v': c->verbose++; break;
    default: return NVS_OPT_NOT_MINE;
    }
    return NVS_OK;
}
