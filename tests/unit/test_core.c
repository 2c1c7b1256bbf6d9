/* Pure core: size parsing, type tables, sweep sizes, bandwidths, statistics, efficiency, 16-bit conversions. */
#include "core/dtype.h"
#include "core/half.h"
#include "core/host_name.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/units.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "t.h"

static void t_parse_size(void)
{
    static const struct {
        const char *in;
        int rc;
        size_t v;
    } cases[] = {
        {"8", 0, 8},          {"1K", 0, 1024},          {"1k", 0, 1024},         {"64KB", 0, 65536},
        {"1M", 0, 1048576},   {"1MiB", 0, 1048576},     {"8G", 0, 8589934592ull}, {"1T", 0, 1099511627776ull},
        {"0", 0, 0},          {"", -1, 0},              {"-1", -1, 0},            {"1.5M", -1, 0},
        {"12Q", -1, 0},       {"M", -1, 0},             {" 8", -1, 0},            {"8 ", -1, 0},
        {"99999999999999999999", -1, 0},                {"17179869184G", -1, 0},  {"+5", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t v = 12345;
        int rc = nvs_parse_size(cases[i].in, &v);
        if (rc != cases[i].rc) T_FAIL("parse_size(\"%s\") returned %d, expected %d", cases[i].in, rc, cases[i].rc);
        if (!rc && v != cases[i].v) T_FAIL("parse_size(\"%s\") = %zu, expected %zu", cases[i].in, v, cases[i].v);
    }
}

/* A size nccl-tests takes and nvscale does not ("1.5M": its parsesize reads a double) says what to write */
static void t_size_hint(void)
{
    static const struct {
        const char *in;
        int rc;
        size_t bytes;
        const char *says;
    } cases[] = {
        {"1.5M", 1, 1572864, "write 1536K"},    {"0.5G", 1, 536870912, "write 512M"},
        {"1.5K", 1, 1536, "write 1536"},        {"1e6", 1, 1000000, "write 1000000"},
        {"2.5MiB", 1, 2621440, "write 2560K"},  {"1.5", 1, 0, "1.5 bytes is no whole number"},
        {"1.3K", 1, 0, "1331.2 bytes is no whole number"},
        {"1M", 0, 0, NULL},   {"1.5x", 0, 0, NULL}, {"-1.5M", 0, 0, NULL}, {"abc", 0, 0, NULL},
        {"0.0", 0, 0, NULL},  {"1e400", 0, 0, NULL}, {"", 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[192] = "";
        size_t b = 12345;
        int rc = nvs_size_hint(cases[i].in, &b, buf, sizeof buf);
        if (rc != cases[i].rc) T_FAIL("size_hint(\"%s\") returned %d, expected %d (%s)", cases[i].in, rc, cases[i].rc, buf);
        if (rc && b != cases[i].bytes) T_FAIL("size_hint(\"%s\"): %zu bytes, expected %zu", cases[i].in, b, cases[i].bytes);
        if (rc && (!strstr(buf, cases[i].says) || !strstr(buf, "whole bytes with an optional K/M/G/T suffix")))
            T_FAIL("size_hint(\"%s\") says '%s', not '%s'", cases[i].in, buf, cases[i].says);
    }
}

/* Every size of nvscale's (flags, rules files): a plain size, or a decimal one that comes to whole bytes */
static void t_parse_size_whole(void)
{
    static const struct {
        const char *in;
        int rc;
        size_t v;
        const char *why; /* "" : refused without words (the caller's own) */
    } cases[] = {
        {"64K", 0, 65536, NULL},  {"1.5M", 0, 1572864, NULL}, {"1e6", 0, 1000000, NULL},
        {"1.3K", -1, 0, "1331.2 bytes is no whole number"},   {"0.5", -1, 0, "0.5 bytes is no whole number"},
        {"abc", -1, 0, ""},       {"-1.5M", -1, 0, ""},
        /* a decimal zero is 0, as "0" is: the caller's range check says so in the same words (was refused as no
         * size: a rules file's size=0.0 said "is not a size", size=0 "0 bytes: ... 1 byte or more") */
        {"0", 0, 0, NULL},        {"0.0", 0, 0, NULL},        {"0.0K", 0, 0, NULL},       {"0e3", 0, 0, NULL},
        {"-0.0", -1, 0, ""},      {"+0", -1, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[192] = "x";
        size_t v = 12345;
        int rc = nvs_parse_size_whole(cases[i].in, &v, why, sizeof why);
        if (rc != cases[i].rc) T_FAIL("parse_size_whole(\"%s\") returned %d, expected %d (%s)", cases[i].in, rc, cases[i].rc, why);
        if (!rc && v != cases[i].v) T_FAIL("parse_size_whole(\"%s\") = %zu, expected %zu", cases[i].in, v, cases[i].v);
        if (rc && (*cases[i].why ? !strstr(why, cases[i].why) : why[0] != '\0'))
            T_FAIL("parse_size_whole(\"%s\") says '%s', not '%s'", cases[i].in, why, cases[i].why);
    }
}

static void t_parse_numbers(void)
{
    long l;
    double d;
    T_EQ_I(nvs_parse_long("42", &l), 0);
    T_EQ_I(l, 42);
    T_EQ_I(nvs_parse_long("4x", &l), -1);
    T_EQ_I(nvs_parse_long("", &l), -1);
    T_EQ_I(nvs_parse_double("2.5", &d), 0);
    T_NEAR(d, 2.5, 0);
    T_EQ_I(nvs_parse_double("nan", &d), -1);
    T_EQ_I(nvs_parse_double("inf", &d), -1);
    T_EQ_I(nvs_parse_double("1e400", &d), -1);
    /* every percentage flag's value: an optional trailing '%', one only */
    T_EQ_I(nvs_parse_percent("5%", &d), 0);
    T_NEAR(d, 5, 0);
    T_EQ_I(nvs_parse_percent("2.5", &d), 0);
    T_NEAR(d, 2.5, 0);
    static const char *const bad[] = {"%", "5%%", "%5", "5 %", "x%", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (nvs_parse_percent(bad[i], &d) == 0) T_FAIL("nvs_parse_percent(\"%s\") accepted: %g", bad[i], d);
}

/* issue 14: one decimal parser for flags and files. strtod/strtol accepted hex ("-f 0x10", "--timeout 0x10"),
 * blanks, '+', "infinity", and underflow to a denormal or zero ("1e-400"). */
static void t_parse_decimal_only(void)
{
    double d = 0;
    long l = 0;
    static const char *const bad[] = {"0x10", "0X1p3", " 1", "1 ", "+1", "1e", "e5", ".", "-", "--1", "1,5", "inf",
                                      "infinity", "nan", "1e-400", "1e400", "1.5.2", "5M", "5K", "0x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (nvs_parse_double(bad[i], &d) == 0) T_FAIL("nvs_parse_double(\"%s\") accepted: %g", bad[i], d);
    static const char *const bad_l[] = {"0x10", "010x", "+5", " 5", "5 ", "1e3", "1.0", "-", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_l / sizeof bad_l[0]; i++)
        if (nvs_parse_long(bad_l[i], &l) == 0) T_FAIL("nvs_parse_long(\"%s\") accepted: %ld", bad_l[i], l);
    T_EQ_I(nvs_parse_double("2.5e7", &d), 0);
    T_NEAR(d, 2.5e7, 0);
    T_EQ_I(nvs_parse_double(".5", &d), 0);
    T_NEAR(d, 0.5, 0);
    T_EQ_I(nvs_parse_double("5.", &d), 0);
    T_EQ_I(nvs_parse_double("-1.5", &d), 0);
    T_NEAR(d, -1.5, 0);
    /* "-0" is zero, not a negative zero that printers show as "-0" and JSON as -0.0 (a preset's latency of -0.0) */
    T_EQ_I(nvs_parse_double("-0", &d), 0);
    if (signbit(d)) T_FAIL("nvs_parse_double(\"-0\") gave -0");
    T_EQ_I(nvs_parse_double("-0.0e3", &d), 0);
    if (signbit(d)) T_FAIL("nvs_parse_double(\"-0.0e3\") gave -0");
    T_EQ_I(nvs_parse_long("010", &l), 0); /* decimal, not octal */
    T_EQ_I(l, 10);
    T_EQ_I(nvs_parse_long("-3", &l), 0);
    T_EQ_I(l, -3);
    /* the reason, for the messages of file parsers */
    T_EQ_I(nvs_parse_decimal("-1", &d), NVS_NUM_NEGATIVE);
    T_EQ_I(nvs_parse_decimal("25M", &d), NVS_NUM_SUFFIX);
    T_EQ_I(nvs_parse_decimal("0x10", &d), NVS_NUM_SYNTAX);
    T_EQ_I(nvs_parse_decimal("1e-400", &d), NVS_NUM_TINY); /* underflow: too small, not "not finite" */
    T_EQ_I(nvs_parse_decimal("1e400", &d), NVS_NUM_RANGE);
    T_ASSERT(strstr(nvs_num_status_text(NVS_NUM_TINY), "too small") != NULL);
    T_EQ_I(nvs_parse_decimal("", &d), NVS_NUM_EMPTY);
}

/* issue 14: "--coll a,,b" was accepted (strtok skips empty items) */
static void t_list_split(void)
{
    char *copy, *items[4], err[128];
    T_EQ_I(nvs_list_split("a,b,c", &copy, items, 4, err, sizeof err), 3);
    T_EQ_S(items[2], "c");
    free(copy);
    static const char *const bad[] = {"", "a,,b", ",a", "a,", ",", "a,b,c,d,e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int n = nvs_list_split(bad[i], &copy, items, 4, err, sizeof err);
        free(copy);
        if (n != -1) T_FAIL("nvs_list_split(\"%s\") = %d, expected -1", bad[i], n);
    }
    T_EQ_I(nvs_list_split("a,,b", &copy, items, 4, err, sizeof err), -1);
    free(copy);
    T_CONTAINS(err, "empty item");
}

static void t_format_size(void)
{
    char b[32];
    T_EQ_S(nvs_format_size(8, b, sizeof b), "8 B");
    T_EQ_S(nvs_format_size(1024, b, sizeof b), "1 KiB");
    T_EQ_S(nvs_format_size(3 << 20, b, sizeof b), "3 MiB");
    T_EQ_S(nvs_format_size(1000, b, sizeof b), "1000 B");
    T_EQ_S(nvs_format_size((size_t)8 << 30, b, sizeof b), "8 GiB");
}

static void t_dtypes(void)
{
    T_EQ_U(nvs_dtype_size(NVS_FLOAT), 4);
    T_EQ_U(nvs_dtype_size(NVS_HALF), 2);
    T_EQ_U(nvs_dtype_size(NVS_BF16), 2);
    T_EQ_U(nvs_dtype_size(NVS_INT32), 4);
    T_EQ_U(nvs_dtype_size(NVS_DOUBLE), 8);
    T_EQ_I(nvs_dtype_parse("bf16"), NVS_BF16);
    T_EQ_I(nvs_dtype_parse("fp16"), NVS_HALF);
    T_EQ_I(nvs_dtype_parse("int"), NVS_INT32);
    T_EQ_I(nvs_dtype_parse("float8"), -1);
    T_EQ_I(nvs_redop_parse("prod"), NVS_PROD);
    T_EQ_I(nvs_redop_parse("avg"), NVS_AVG);
    T_EQ_S(nvs_redop_name(NVS_AVG), "avg");
    T_EQ_S(nvs_dtype_name(NVS_BF16), "bfloat16");
    /* nccl-tests' other types, by its -d names, sizes and output names */
    static const struct {
        const char *name;
        nvs_dtype t;
        size_t size;
        int is_unsigned;
    } more[] = {{"int8", NVS_INT8, 1, 0},     {"uint8", NVS_UINT8, 1, 1},   {"uint32", NVS_UINT32, 4, 1},
                {"int64", NVS_INT64, 8, 0},   {"uint64", NVS_UINT64, 8, 1}, {"int32", NVS_INT32, 4, 0}};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        T_EQ_I(nvs_dtype_parse(more[i].name), more[i].t);
        T_EQ_S(nvs_dtype_name(more[i].t), more[i].name);
        T_EQ_U(nvs_dtype_size(more[i].t), more[i].size);
        T_EQ_I(nvs_dtype_is_int(more[i].t), 1);
        T_EQ_I(nvs_dtype_is_unsigned(more[i].t), more[i].is_unsigned);
    }
    T_EQ_I(nvs_dtype_parse("char"), NVS_INT8);
    T_EQ_I(nvs_dtype_is_int(NVS_HALF), 0);
    /* int8 sums: M * n <= 127 keeps every partial sum in [-127, 127]; uint8 shifts to [0, 2M]: 2M*n <= 254 */
    T_NEAR(nvs_dtype_exact_int(NVS_INT8), 127, 0);
    T_NEAR(nvs_dtype_exact_int(NVS_UINT8), 127, 0);
    /* avg's unit: 1/n rounded to the type (through binary32 for 16-bit types) */
    T_NEAR(nvs_dtype_round(NVS_FLOAT, 1.0 / 3), (float)(1.0 / 3), 0);
    T_NEAR(nvs_dtype_round(NVS_BF16, 1.0 / 3), 0.333984375, 0);
    /* exact integer bounds: 2^(significand bits) */
    T_NEAR(nvs_dtype_exact_int(NVS_HALF), 2048, 0);
    T_NEAR(nvs_dtype_exact_int(NVS_BF16), 256, 0);
}

static void t_sweep_sizes(void)
{
    size_t s[64];
    /* nccl-tests: -b 8 -e 128M -f 2 gives 25 sizes, 8 .. 134217728 */
    size_t n = nvs_sweep_sizes(8, 128 << 20, 2.0, 0, s, 64);
    T_EQ_U(n, 25);
    T_EQ_U(s[0], 8);
    T_EQ_U(s[24], 134217728);
    /* the reference broadcast sweep: -b 8 -e 8G -f 4 -> 16 sizes (see shared/reference/h200x2/bcast.txt) */
    n = nvs_sweep_sizes(8, (size_t)8 << 30, 4.0, 0, s, 64);
    T_EQ_U(n, 16);
    T_EQ_U(s[15], 8589934592ull);
    /* -i step */
    n = nvs_sweep_sizes(100, 400, 0, 100, s, 64);
    T_EQ_U(n, 4);
    T_EQ_U(s[3], 400);
    /* invalid */
    T_EQ_U(nvs_sweep_sizes(10, 5, 2.0, 0, s, 64), 0);
    T_EQ_U(nvs_sweep_sizes(1, 5, 1.0, 0, s, 64), 0);
    /* more sizes than room: the count is still reported so callers can refuse */
    T_ASSERT(nvs_sweep_sizes(1, 1000, 0, 1, s, 64) > 64);
}

/* issue 14: -i 18446744073709551615 converted a double >= 2^64 to size_t (undefined behaviour; UBSan's
 * float-cast-overflow fires on the old code under make check SAN=address,undefined) */
static void t_sweep_huge(void)
{
    size_t s[8];
    T_EQ_U(nvs_sweep_sizes(8, SIZE_MAX, 0, SIZE_MAX, s, 8), 1);
    T_EQ_U(s[0], 8);
    size_t n = nvs_sweep_sizes((size_t)1 << 62, SIZE_MAX, 1024.0, 0, s, 8);
    T_EQ_U(n, 1);
    n = nvs_sweep_sizes(SIZE_MAX - 1, SIZE_MAX, 2.0, 0, s, 8);
    T_ASSERT(n <= 1);
}

static void t_bandwidth(void)
{
    /* reference allreduce 1 GiB on 2 GPUs: 3257.21 us -> algbw 329.65 GB/s, busbw x 2(n-1)/n = x1 */
    T_NEAR(nvs_algbw_gbps(1073741824.0, 3257.21), 329.65, 0.01);
    T_NEAR(nvs_busbw_gbps(1073741824.0, 3257.21, 1.0), 329.65, 0.01);
    /* 8 GPUs: factor 2*7/8 = 1.75 */
    T_NEAR(nvs_busbw_gbps(1e9, 1e6, 1.75), 1.75, 1e-12);
    T_NEAR(nvs_algbw_gbps(100, 0), 0, 0);
}

static void t_stats(void)
{
    double v[] = {5, 1, 4, 2, 3};
    nvs_stats s = nvs_stats_of(v, 5);
    T_NEAR(s.min, 1, 0);
    T_NEAR(s.max, 5, 0);
    T_NEAR(s.mean, 3, 1e-12);
    T_NEAR(s.median, 3, 0);
    T_NEAR(s.stddev, 1.5811388300841898, 1e-12);
    double e[] = {4, 1, 3, 2};
    T_NEAR(nvs_median(e, 4), 2.5, 0);
    T_EQ_U(nvs_stats_of(v, 0).n, 0);
    T_NEAR(v[0], 5, 0); /* not reordered */
    /* quantiles: sorted 1..5, q = 0.1 lies 0.4 of the way from 1 to 2; 0.9 0.6 of the way from 4 to 5 */
    T_NEAR(nvs_quantile(v, 5, 0.1), 1.4, 1e-12);
    T_NEAR(nvs_quantile(v, 5, 0.9), 4.6, 1e-12);
    T_NEAR(nvs_quantile(v, 5, 0.5), 3, 0);
    T_NEAR(nvs_quantile(v, 5, 0), 1, 0);
    T_NEAR(nvs_quantile(v, 5, 1), 5, 0);
    T_NEAR(nvs_quantile(e, 4, 0.5), nvs_median(e, 4), 0);
    T_NEAR(nvs_quantile(v, 1, 0.9), 5, 0);
    T_NEAR(nvs_quantile(v, 0, 0.5), 0, 0);
    T_ASSERT(isnan(nvs_quantile(v, 5, 1.5)) && isnan(nvs_quantile(v, 5, -0.1)) && isnan(nvs_quantile(v, 5, NAN)));
    T_NEAR(v[0], 5, 0);
}

static void t_efficiency(void)
{
    T_NEAR(nvs_scaling_efficiency(100, 100), 1.0, 0);
    T_NEAR(nvs_scaling_efficiency(100, 125), 0.8, 1e-12);
    T_NEAR(nvs_scaling_efficiency(0, 125), 0.0, 0);
    /* paired rounds: the median of the rounds' own ratios, not the ratio of the medians (here 100/125 = 0.8):
     * the host was slow in round 2 for both N */
    const double ref[3] = {100, 140, 100}, st[3] = {125, 140, 110};
    double lo = -1, hi = -1;
    T_NEAR(nvs_paired_efficiency(ref, st, 3, &lo, &hi), 100.0 / 110, 1e-12);
    T_NEAR(lo, 0.8, 1e-12);
    T_NEAR(hi, 1.0, 1e-12);
    /* a round missing either side is skipped; none usable gives 0 */
    const double ref2[3] = {100, 0, 90}, st2[3] = {125, 140, -1};
    T_NEAR(nvs_paired_efficiency(ref2, st2, 3, &lo, &hi), 0.8, 1e-12);
    T_NEAR(lo, 0.8, 1e-12);
    T_NEAR(nvs_paired_efficiency(ref2 + 1, st2 + 1, 2, &lo, &hi), 0.0, 0);
    T_NEAR(lo, 0.0, 0);
    T_NEAR(hi, 0.0, 0);
    T_NEAR(nvs_paired_efficiency(ref, st, 2, NULL, NULL), (0.8 + 1.0) / 2, 1e-12);
    T_EQ_I(nvs_auto_iters(10, 20000, 20, 1000), 1000);
    T_EQ_I(nvs_auto_iters(100, 20000, 20, 1000), 200);
    T_EQ_I(nvs_auto_iters(5000, 20000, 20, 1000), 20);
    T_EQ_I(nvs_auto_iters(0, 20000, 20, 1000), 1000);
}

static void t_half(void)
{
    /* every integer the patterns use round-trips exactly; known encodings */
    for (int i = -2048; i <= 2048; i++) {
        if (nvs_f16_to_f32(nvs_f32_to_f16((float)i)) != (float)i) T_FAIL("half %d does not round-trip", i);
        if (i >= -256 && i <= 256 && nvs_bf16_to_f32(nvs_f32_to_bf16((float)i)) != (float)i)
            T_FAIL("bf16 %d does not round-trip", i);
    }
    T_EQ_U(nvs_f32_to_f16(1.0f), 0x3c00);
    T_EQ_U(nvs_f32_to_f16(-2.0f), 0xc000);
    T_EQ_U(nvs_f32_to_f16(65504.0f), 0x7bff);
    T_EQ_U(nvs_f32_to_f16(1e6f), 0x7c00);         /* overflow to infinity */
    T_EQ_U(nvs_f32_to_f16(5.9604645e-8f), 0x0001); /* smallest subnormal */
    T_EQ_U(nvs_f32_to_f16(2049.0f), 0x6800);      /* tie to even: 2048 */
    T_EQ_U(nvs_f32_to_bf16(1.0f), 0x3f80);
    T_EQ_U(nvs_f32_to_bf16(257.0f), 0x4380);      /* tie to even: 256 */
    T_NEAR(nvs_f16_to_f32(0x0001), 5.9604645e-8, 1e-15);
}

static void t_sort_unique(void)
{
    int v[] = {8, 2, 2, 1, 8, 4, -2147483647, 2147483647};
    T_EQ_I(nvs_sort_unique_int(v, 8), 6);
    int want[] = {-2147483647, 1, 2, 4, 8, 2147483647}; /* far apart: a comparator by subtraction overflows */
    for (int i = 0; i < 6; i++) T_EQ_I(v[i], want[i]);
    double d[] = {1048576, 1024, 1048576, 8, 1024};
    T_EQ_I(nvs_sort_unique_double(d, 5), 3);
    T_NEAR(d[0], 8, 0);
    T_NEAR(d[1], 1024, 0);
    T_NEAR(d[2], 1048576, 0);
    T_EQ_I(nvs_sort_unique_int(v, 0), 0);
    T_EQ_I(nvs_sort_unique_double(d, 1), 1);
}

/* gethostname's leftovers made a usable name: a full buffer left without a NUL (POSIX: unspecified on
 * truncation; glibc does so with ENAMETOOLONG) is terminated, a failure or an empty name is "unknown" */
static void t_host_name(void)
{
    char h[8];
    memset(h, 'a', sizeof h);
    T_EQ_I(nvs_host_name_fix(h, sizeof h, 0, 0), 0);
    T_EQ_S(h, "aaaaaaa");
    memset(h, 'b', sizeof h);
    T_EQ_I(nvs_host_name_fix(h, sizeof h, -1, ENAMETOOLONG), 0);
    T_EQ_S(h, "bbbbbbb");
    memset(h, 'c', sizeof h);
    T_EQ_I(nvs_host_name_fix(h, sizeof h, -1, EFAULT), -1);
    T_EQ_S(h, "unknown");
    h[0] = '\0';
    T_EQ_I(nvs_host_name_fix(h, sizeof h, 0, 0), -1);
    T_EQ_S(h, "unknown");
    char tiny[4] = "xyzw";
    T_EQ_I(nvs_host_name_fix(tiny, sizeof tiny, -1, EINVAL), -1);
    T_EQ_S(tiny, "unk");
    snprintf(h, sizeof h, "box");
    T_EQ_I(nvs_host_name_fix(h, sizeof h, 0, 0), 0);
    T_EQ_S(h, "box");
    /* the real one: terminated and non-empty whatever the machine */
    char real[64];
    nvs_host_name(real, sizeof real);
    T_ASSERT(real[0] && memchr(real, '\0', sizeof real));
}

static void *log_other_rank(void *arg)
{
    (void)arg;
    nvs_error("cudaMalloc of 2.0 GiB on GPU 1 failed: out of memory");
    return strcmp(nvs_log_last_error(), "cudaMalloc of 2.0 GiB on GPU 1 failed: out of memory") ? NULL : arg;
}

/* The last error line a rank logged (log.h nvs_log_last_error): kept under -q, first line only, control characters
 * as spaces, cut whole characters, per thread (the threads runtime's ranks), forgotten on request. */
static void t_last_error(void)
{
    int was = nvs_log_level();
    nvs_log_set_level(-1); /* nothing said, still kept */
    nvs_log_forget_error();
    T_EQ_S(nvs_log_last_error(), "");
    nvs_warn("a warning is not an error");
    T_EQ_S(nvs_log_last_error(), "");
    nvs_error("NCCL all_reduce\tfailed: unhandled cuda error\nlast lines of the child");
    T_EQ_S(nvs_log_last_error(), "NCCL all_reduce failed: unhandled cuda error");
    /* a long message is cut to NVS_LOG_LAST_LEN - 1 bytes, never inside a character: "\xc3\xa9" (U+00E9) would
     * straddle the limit */
    char lng[NVS_LOG_LAST_LEN + 8];
    memset(lng, 'a', NVS_LOG_LAST_LEN - 2);
    snprintf(lng + NVS_LOG_LAST_LEN - 2, sizeof lng - (NVS_LOG_LAST_LEN - 2), "\xc3\xa9tail");
    nvs_error("%s", lng);
    T_EQ_I((long long)strlen(nvs_log_last_error()), NVS_LOG_LAST_LEN - 2);
    /* a rank that is another thread keeps its own */
    pthread_t t;
    int tag = 1;
    void *ok = NULL;
    T_EQ_I(pthread_create(&t, NULL, log_other_rank, &tag), 0);
    T_EQ_I(pthread_join(t, &ok), 0);
    T_ASSERT(ok == &tag);
    T_EQ_I((long long)strlen(nvs_log_last_error()), NVS_LOG_LAST_LEN - 2);
    nvs_log_forget_error();
    T_EQ_S(nvs_log_last_error(), "");
    nvs_log_set_level(was);
    /* nvs_utf8_trim: an incomplete sequence at the end goes, a whole one stays */
    char a[] = "x\xe2\x82", b[] = "x\xe2\x82\xac", c[] = "x\xf0", d[] = "plain";
    T_EQ_S(nvs_utf8_trim(a), "x");
    T_EQ_S(nvs_utf8_trim(b), "x\xe2\x82\xac");
    T_EQ_S(nvs_utf8_trim(c), "x");
    T_EQ_S(nvs_utf8_trim(d), "plain");
}

T_LIST = {T_CASE(t_last_error), T_CASE(t_host_name), T_CASE(t_parse_size), T_CASE(t_size_hint), T_CASE(t_parse_size_whole), T_CASE(t_parse_numbers), T_CASE(t_parse_decimal_only), T_CASE(t_list_split),
          T_CASE(t_sweep_huge), T_CASE(t_format_size), T_CASE(t_dtypes),
          T_CASE(t_sweep_sizes), T_CASE(t_bandwidth), T_CASE(t_stats),   T_CASE(t_efficiency), T_CASE(t_half),
          T_CASE(t_sort_unique)};
T_MAIN
