/* The launch shape of a copy through a permuted view (view_plan.h). */
#include "train/view_plan.h"

#include <stdint.h>

nvs_divider nvs_divider_of(unsigned d)
{
    nvs_divider v = {d ? d : 1, 0, 0};
    while (v.s < 32 && (1ull << v.s) < v.d) v.s++;
    v.m = (unsigned)(((1ull << 32) * ((1ull << v.s) - v.d)) / v.d + 1);
    return v;
}

unsigned nvs_divider_div(const nvs_divider *v, unsigned n)
{
    unsigned hi = (unsigned)(((uint64_t)n * v->m) >> 32);
    return (hi + n) >> v->s;
}

int nvs_view_plan_of(long long outer, long long a, long long b, long long run, int elem_bytes, nvs_view_plan *out)
{
    if (outer < 1 || a < 1 || b < 1 || run < 1 || (elem_bytes != 2 && elem_bytes != 4)) return -1;
    const long long lim = 1ll << 31;
    if (a >= lim || b >= lim || run >= lim || outer >= lim / a || outer * a >= lim / b || outer * a * b >= lim / run)
        return -1;
    long long n = outer * a * b * run;
    out->n = (unsigned)n;
    out->unroll = elem_bytes == 2 ? 4 : 2;
    long long per = (long long)NVS_VIEW_THREADS * out->unroll;
    out->blocks = (unsigned)((n + per - 1) / per);
    out->run = nvs_divider_of((unsigned)run);
    out->a = nvs_divider_of((unsigned)a);
    out->b = nvs_divider_of((unsigned)b);
    return 0;
}

unsigned nvs_view_src_index(const nvs_view_plan *p, unsigned idx)
{
    unsigned t = nvs_divider_div(&p->run, idx), r = idx - t * p->run.d;
    unsigned u = nvs_divider_div(&p->a, t), i = t - u * p->a.d;
    unsigned o = nvs_divider_div(&p->b, u), j = u - o * p->b.d;
    return ((o * p->a.d + i) * p->b.d + j) * p->run.d + r;
}
