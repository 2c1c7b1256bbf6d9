/* Registry of the collectives: the table the sweep walks, in NVS_COLL_LIST order. */
#include "collectives/coll.h"

#include <string.h>
#include <strings.h>

static const nvs_coll *const registry[] = {
#define NVS_X_REF(n) &nvs_coll_##n,
    NVS_COLL_LIST(NVS_X_REF)
#undef NVS_X_REF
};

int nvs_coll_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const nvs_coll *nvs_coll_at(int i) { return i >= 0 && i < nvs_coll_count() ? registry[i] : NULL; }

int nvs_coll_index(const nvs_coll *c)
{
    for (int i = 0; i < nvs_coll_count(); i++)
        if (registry[i] == c) return i;
    return -1;
}

/* Compare ignoring '_' and case, so "allreduce", "all_reduce" and "AllReduce" all name the same thing. */
static int same_name(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_') a++;
        while (*b == '_') b++;
        if (!*a || !*b) return !*a && !*b;
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y) return 0;
        a++;
        b++;
    }
}

const nvs_coll *nvs_coll_find(const char *name)
{
    if (!strcasecmp(name, "bcast")) name = "broadcast";
    for (int i = 0; i < nvs_coll_count(); i++)
        if (same_name(name, registry[i]->name)) return registry[i];
    return NULL;
}

int nvs_coll_counts_flat(size_t bytes, size_t type_size, int nranks, int rank, nvs_coll_counts *c)
{
    (void)nranks;
    (void)rank;
    size_t count = type_size ? bytes / type_size : 0;
    if (!count) return -1;
    *c = (nvs_coll_counts){.count = count, .bytes = count * type_size, .send_count = count, .recv_count = count};
    return 0;
}

size_t nvs_coll_per_rank(size_t bytes, size_t type_size, int nranks)
{
    if (!type_size || nranks < 1) return 0;
    size_t base = bytes / type_size / (size_t)nranks;
    /* every type here is 1..8 bytes: 16 / type_size >= 2 elements make 16 bytes */
    size_t align = type_size < 16 ? 16 / type_size : 1;
    return base - base % align;
}

nvs_pattern nvs_pattern_for(nvs_dtype t, int op, int n, uint32_t seed)
{
    nvs_pattern p = {.op = op < 0 ? NVS_SUM : op, .nranks = n,
                     .magnitude = nvs_pattern_magnitude(nvs_dtype_exact_int(t), n), .seed = seed,
                     .is_int = nvs_dtype_is_int(t), .is_unsigned = nvs_dtype_is_unsigned(t),
                     .avg_unit = n > 0 ? nvs_dtype_round(t, 1.0 / n) : 0};
    return p;
}
