#include "collectives/rows.h"

#include <stdlib.h>

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

void nvs_rows_free(nvs_coll_rows *r)
{
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}
