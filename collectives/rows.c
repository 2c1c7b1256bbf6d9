#include "collectives/rows.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/units.h"

nvs_result_t nvs_rows_push(nvs_coll_rows *r, const nvs_coll_row *row)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        nvs_coll_row *v = realloc(r->v, cap * sizeof *v);
        if (!v) return NVS_ERR_NOMEM;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = *row;
    return r->on_push ? r->on_push(r->on_push_arg) : NVS_OK;
}

nvs_result_t nvs_rows_skip(nvs_coll_rows *r, int coll, int n, nvs_dtype type, size_t size, int planned)
{
    for (size_t i = 0; i < r->nskips; i++) {
        nvs_coll_skip *k = &r->skips[i];
        if (k->coll != coll || k->n != n || k->type != type) continue;
        if (size > k->last) { /* the next size up; one already counted (another op or placement) is not again */
            k->last = size;
            k->sizes++;
        }
        return NVS_OK;
    }
    if (r->nskips == r->skips_cap) {
        size_t cap = r->skips_cap ? r->skips_cap * 2 : 8;
        nvs_coll_skip *v = realloc(r->skips, cap * sizeof *v);
        if (!v) return NVS_ERR_NOMEM;
        r->skips = v;
        r->skips_cap = cap;
    }
    r->skips[r->nskips++] = (nvs_coll_skip){coll, n, type, size, size, 1, planned};
    return NVS_OK;
}

char *nvs_coll_skip_text(const nvs_coll_skip *k, char *buf, size_t len)
{
    char a[32], b[32];
    nvs_format_size(k->first, a, sizeof a);
    nvs_format_size(k->last, b, sizeof b);
    char which[128];
    if (k->sizes >= k->planned) snprintf(which, sizeof which, "no size measured (%s to %s)", a, b);
    else if (k->sizes == 1) snprintf(which, sizeof which, "1 of %d sizes (%s) left out", k->planned, a);
    else snprintf(which, sizeof which, "%d of %d sizes (%s to %s) left out", k->sizes, k->planned, a, b);
    snprintf(buf, len, "%s: too small to give each of the %d ranks one %s element (all_gather, reduce_scatter and "
                       "alltoall: whole 16-byte blocks per rank, as nccl-tests)",
             which, k->n, nvs_dtype_name(k->type));
    return buf;
}

void nvs_rows_free(nvs_coll_rows *r)
{
    free(r->v);
    free(r->skips);
    r->v = NULL;
    r->skips = NULL;
    r->n = r->cap = r->nskips = r->skips_cap = 0;
}
