/* The values of the collective sweep's flags, nccl-tests' and ours (-b .. --alloc, options.c's first group). The
 * checks between them that need every flag read (-f with -i, -b above -e) are options_checks.c's. */
#include "core/config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/options_priv.h"
#include "collectives/coll.h"
#include "core/dtype.h"
#include "core/units.h"
#include "run/phases.h"

static int lookup_coll(const char *s) { return nvs_coll_find(s) ? nvs_coll_index(nvs_coll_find(s)) : -1; }

int nvs_opt_sweep(nvs_opt_parse *ps, int opt, const char *flag, const char *a)
{
    nvs_config *c = ps->c;
    const char *sub = ps->sub;
    char badname[192];
    int pm;
    switch (opt) {
    case 'm':
        if (nvs_opt_int_range(a, 1, 1024, &c->agg_iters)) return nvs_opt_bad(sub, flag, a, "expected 1..1024");
        break;
    case 'a':
        if (nvs_opt_int_range(a, 0, 3, &c->time_basis))
            return nvs_opt_bad(sub, flag, a, "expected 0 (rank 0), 1 (mean), 2 (fastest) or 3 (slowest rank)");
        break;
    case 'z':
        /* nccl-tests 2.19 (common.cu startColl): -z 1 syncs and barriers after each operation, -z 2 syncs only,
         * -z 3 times only the synced operations (paired events), which nvscale does not: named, not a bare range */
        if (nvs_opt_int_range(a, 0, 2, &c->blocking))
            return nvs_opt_bad(sub, flag, a,
                               "expected 0, 1 or 2 (wait for each operation, 1 then a host barrier, 2 without, "
                               "as nccl-tests; its -z 3, timing only the waited operations, is not taken)");
        break;
    case 'g':
    case 't': {
        int one = 0;
        if (nvs_opt_int_range(a, 1, 1, &one))
            return nvs_opt_bad(sub, flag, a,
                               opt == 'g'
                                   ? "nvscale drives one GPU per rank: for N GPUs run `mpirun -np N nvscale` (or plain "
                                     "`nvscale`: one thread per visible GPU, CUDA_VISIBLE_DEVICES honoured)"
                                   : "nvscale runs one thread per rank: under mpirun use -np N; without a launcher it "
                                     "starts one thread per visible GPU by itself");
        break;
    }
    case OPT_ALLOC:
        if (strcmp(a, "cuda") && strcmp(a, "nccl")) return nvs_opt_bad(sub, flag, a, "expected cuda or nccl");
        c->alloc_nccl = !strcmp(a, "nccl");
        break;
    case 'b':
        c->sizes_explicit = 1;
        if (nvs_opt_size(sub, flag, a, 1, &c->min_bytes, "expected a size from 1 to 1T such as 8, 64K, 1M"))
            return NVS_ERR_USAGE;
        ps->b_typed = a;
        snprintf(ps->flag_b, sizeof ps->flag_b, "%s", flag);
        break;
    case 'e':
        c->sizes_explicit = 1;
        if (nvs_opt_size(sub, flag, a, 1, &c->max_bytes, "expected a size from 1 to 1T such as 128M or 8G"))
            return NVS_ERR_USAGE;
        ps->e_typed = a;
        snprintf(ps->flag_e, sizeof ps->flag_e, "%s", flag);
        break;
    case 'f':
        if (nvs_parse_double(a, &c->step_factor) || c->step_factor < 1.0 || c->step_factor > 1024)
            return nvs_opt_bad(sub, flag, a, "expected a factor above 1, at most 1024 (e.g. 2)");
        /* nccl-tests' -f 1: no factor, its -i steps (nccl-tests' default); taken with -i alone, below */
        ps->have_f = c->step_factor > 1.0 ? 1 : -1;
        snprintf(ps->flag_f1, sizeof ps->flag_f1, "%s", flag);
        c->sizes_explicit = 1;
        break;
    case 'i':
        if (nvs_opt_size(sub, flag, a, 1, &c->step_bytes, "expected a step size from 1 to 1T")) return NVS_ERR_USAGE;
        ps->have_i = 1;
        c->sizes_explicit = 1;
        break;
    case 'n':
        if (!strcasecmp(a, "auto")) c->iters = 0;
        else if (nvs_opt_int_range(a, 1, 10000000, &c->iters))
            return nvs_opt_bad(sub, flag, a, "expected 1..10000000 or auto");
        break;
    case 'w':
        if (nvs_opt_int_range(a, 0, 1000000, &c->warmup)) return nvs_opt_bad(sub, flag, a, "expected 0..1000000");
        break;
    case 'c':
        /* nccl-tests' -c N checks N iterations (common.cu: for c < datacheck); nvscale checks one */
        if (nvs_opt_int_range(a, 0, 1, &c->check))
            return nvs_opt_bad(sub, flag, a, "expected 0 or 1 (nccl-tests' -c N checks N iterations; nvscale validates "
                                             "each configuration once: -c 1)");
        break;
    case 'G':
        if (nvs_opt_int_range(a, 0, 1000000, &c->graph_launches))
            return nvs_opt_bad(sub, flag, a, "expected 0..1000000");
        break;
    case 'd':
        if ((pm = nvs_opt_mask(a, nvs_dtype_parse, NVS_DTYPE_COUNT, &c->types_mask, "type", badname, sizeof badname)) ==
            -2)
            return nvs_opt_bad(sub, flag, a, badname);
        else if (pm && (!strcasecmp(badname, "f8e4m3") || !strcasecmp(badname, "f8e5m2")))
            /* nccl-tests 2.19.6 names (common.cu test_typenames): ncclFloat8e4m3/e5m2, which the fill and
             * check of collectives/kernels.cu and the MPI host backend do not have */
            return nvs_opt_bad(sub, flag, badname,
                               "nccl-tests' fp8 type, which nvscale does not measure: types are int8, uint8, int32, "
                               "uint32, int64, uint64, half, float, double, bfloat16, or all");
        else if (pm)
            return nvs_opt_bad(sub, flag, badname,
                               "types are int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or "
                               "all");
        break;
    case 'o':
        if ((pm = nvs_opt_mask(a, nvs_redop_parse, NVS_OP_COUNT, &c->ops_mask, "operation", badname, sizeof badname)) ==
            -2)
            return nvs_opt_bad(sub, flag, a, badname);
        else if (pm && !strcasecmp(badname, "mulsum"))
            /* nccl-tests 2.19.6's mulsum: a sum premultiplied by a scalar (ncclRedOpCreatePreMulSum) */
            return nvs_opt_bad(sub, flag, badname,
                               "nccl-tests' premultiplied sum (ncclRedOpCreatePreMulSum), which nvscale does not "
                               "measure: operations are sum, prod, max, min, avg, or all");
        else if (pm)
            return nvs_opt_bad(sub, flag, badname, "operations are sum, prod, max, min, avg, or all");
        break;
    case 'r':
        if (nvs_opt_int_range(a, 0, 1 << 20, &c->root)) return nvs_opt_bad(sub, flag, a, "expected a rank >= 0");
        break;
    case OPT_COLL:
        if ((pm = nvs_opt_mask(a, lookup_coll, nvs_coll_count(), &c->colls_mask, "collective", badname,
                               sizeof badname)) == -2)
            return nvs_opt_bad(sub, flag, a, badname);
        else if (pm)
            return nvs_opt_bad(sub, flag, badname,
                               "collectives are all_reduce, broadcast, reduce, all_gather, reduce_scatter, alltoall, "
                               "sendrecv, or all");
        c->colls_explicit = 1;
        break;
    case OPT_INPLACE:
        if (!strcasecmp(a, "out")) c->inplace_mask = NVS_INPLACE_OUT;
        else if (!strcasecmp(a, "in")) c->inplace_mask = NVS_INPLACE_IN;
        else if (!strcasecmp(a, "both")) c->inplace_mask = NVS_INPLACE_OUT | NVS_INPLACE_IN;
        else return nvs_opt_bad(sub, flag, a, "expected out, in or both");
        break;
    default: return NVS_OPT_NOT_MINE;
    }
    return NVS_OK;
}
