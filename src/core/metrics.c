#include "core/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t nvs_sweep_sizes(size_t min_bytes, size_t max_bytes, double factor, size_t step, size_t *out, size_t cap)
{
    if (min_bytes > max_bytes) return 0;
    if (!(factor > 1.0) && step == 0) return 0;
    size_t n = 0;
    double size = (double)min_bytes;
    for (;;) {
        /* compared as doubles before the conversion: a double at or above 2^64 has no size_t value (C11
         * 6.3.1.4: undefined), e.g. -i 18446744073709551615 */
        if (!(size <= (double)max_bytes) || size >= 18446744073709551616.0) break;
        size_t s = (size_t)size;
        if (s > max_bytes) break;
        if (n < cap) out[n] = s;
        n++;
        double next = factor > 1.0 ? size * factor : size + (double)step;
        if (next < 18446744073709551616.0 && (size_t)next <= s)
            next = (double)s + 1.0; /* min 0 with a factor, or a tiny factor: always advance */
        size = next;
        if (n > 100000) break; /* a sweep this long is a typo (-i 1 over gigabytes); callers cap anyway */
    }
    return n;
}

double nvs_algbw_gbps(double bytes, double time_us)
{
    return time_us > 0 ? bytes / (time_us * 1e-6) / 1e9 : 0.0;
}

double nvs_busbw_gbps(double bytes, double time_us, double factor)
{
    return nvs_algbw_gbps(bytes, time_us) * factor;
}

int nvs_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int nvs_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int nvs_sort_unique_int(int *v, int n)
{
    if (n > 1) qsort(v, (size_t)n, sizeof *v, nvs_cmp_int);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i]) v[k++] = v[i];
    return k;
}

int nvs_sort_unique_double(double *v, int n)
{
    if (n > 1) qsort(v, (size_t)n, sizeof *v, nvs_cmp_double);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i]) v[k++] = v[i];
    return k;
}

/* A sorted copy of v (n > 0), NULL on out of memory: the caller frees it. */
static double *sorted_copy(const double *v, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (!c) return NULL;
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, nvs_cmp_double);
    return c;
}

double nvs_median(const double *v, size_t n)
{
    if (!n) return 0.0;
    double *c = sorted_copy(v, n);
    if (!c) return NAN;
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

double nvs_quantile(const double *v, size_t n, double q)
{
    if (!(q >= 0 && q <= 1)) return NAN;
    if (!n) return 0.0;
    double *c = sorted_copy(v, n);
    if (!c) return NAN;
    double at = q * (double)(n - 1);
    size_t i = (size_t)at;
    double x = i + 1 < n ? c[i] + (at - (double)i) * (c[i + 1] - c[i]) : c[i];
    free(c);
    return x;
}

nvs_stats nvs_stats_of(const double *v, size_t n)
{
    nvs_stats s = {0};
    s.n = n;
    if (!n) return s;
    s.min = s.max = v[0];
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < s.min) s.min = v[i];
        if (v[i] > s.max) s.max = v[i];
        sum += v[i];
    }
    s.mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    s.median = nvs_median(v, n);
    return s;
}

double nvs_scaling_efficiency(double step1_us, double stepN_us)
{
    if (!(step1_us > 0) || !(stepN_us > 0)) return 0.0;
    return step1_us / stepN_us;
}

double nvs_paired_efficiency(const double *ref_us, const double *step_us, size_t n, double *lo, double *hi)
{
    double e[256];
    size_t k = 0;
    /* a paired run has a few rounds; beyond 256 the first 256 stand for it (options_train.c caps --rounds lower) */
    for (size_t i = 0; i < n && k < sizeof e / sizeof e[0]; i++) {
        double v = nvs_scaling_efficiency(ref_us[i], step_us[i]);
        if (v > 0) e[k++] = v;
    }
    nvs_stats s = nvs_stats_of(e, k);
    if (lo) *lo = s.min;
    if (hi) *hi = s.max;
    return k ? s.median : 0.0;
}

int nvs_auto_iters(double call_us, double target_us, int lo, int hi)
{
    if (!(call_us > 0)) return hi;
    double it = ceil(target_us / call_us);
    if (it < lo) return lo;
    if (it > hi) return hi;
    return (int)it;
}
