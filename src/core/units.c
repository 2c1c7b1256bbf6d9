#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

nvs_num_status nvs_parse_decimal(const char *s, double *out)
{
    if (!s || !*s) return NVS_NUM_EMPTY;
    if (*s == '-') return NVS_NUM_NEGATIVE;
    const char *c = s;
    int digits = 0;
    while (is_digit(*c)) c++, digits++;
    if (*c == '.') {
        c++;
        while (is_digit(*c)) c++, digits++;
    }
    if (digits && (*c == 'e' || *c == 'E')) {
        const char *e = c + 1;
        if (*e == '+' || *e == '-') e++;
        if (is_digit(*e)) {
            while (is_digit(*e)) e++;
            c = e;
        }
    }
    if (!digits || *c) {
        if (digits && strchr("kKmMgGtT", *c) && (c[1] == '\0' || c[1] == 'i' || c[1] == 'B')) return NVS_NUM_SUFFIX;
        return NVS_NUM_SYNTAX;
    }
    /* the syntax above is a subset of strtod's decimal form, so strtod reads exactly these characters */
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end != c) return NVS_NUM_SYNTAX;
    /* strtod's ERANGE is overflow (HUGE_VAL) or underflow (0 or a subnormal): tell them apart */
    if (errno == ERANGE && isfinite(v) && v < 1.0) return NVS_NUM_TINY;
    if (errno == ERANGE || !isfinite(v)) return NVS_NUM_RANGE;
    *out = v;
    return NVS_NUM_OK;
}

const char *nvs_num_status_text(nvs_num_status st)
{
    switch (st) {
    case NVS_NUM_OK: return "ok";
    case NVS_NUM_EMPTY: return "no value";
    case NVS_NUM_NEGATIVE: return "must not be negative";
    case NVS_NUM_SUFFIX: return "no K/M/G suffixes (ambiguous between 1000 and 1024): write the number";
    case NVS_NUM_RANGE: return "out of the range of a number";
    case NVS_NUM_TINY:
        return "too small: not 0, but below the smallest number held (2.2e-308); write 0 or a larger value";
    default: return "not a decimal number (plain or scientific notation, e.g. 4096 or 2.5e7)";
    }
}

int nvs_parse_size(const char *s, size_t *out)
{
    if (!s || !is_digit(*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I')) end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return -1;
    if (shift && v > (ULLONG_MAX >> shift)) return -1;
    v <<= shift;
    if (v > SIZE_MAX) return -1;
    *out = (size_t)v;
    return 0;
}

/* A size written as a decimal number of bytes with an optional K/M/G/T (as nvs_size_hint takes it, nvs_parse_size
 * not): 1 with its bytes (perhaps no whole number) in *b; 0 for anything else (junk, negative, overflow). */
static int decimal_bytes(const char *s, double *b)
{
    static const char units[] = "KMGT";
    size_t n = strspn(s, "0123456789.eE+-");
    char num[64];
    if (!n || n >= sizeof num) return 0;
    memcpy(num, s, n);
    num[n] = '\0';
    const char *u = s + n, *up = *u ? strchr(units, toupper((unsigned char)*u)) : NULL;
    int shift = up ? 10 * (int)(up - units + 1) : 0;
    if (up) u++;
    if (up && (*u == 'i' || *u == 'I')) u++;
    if (*u == 'B' || *u == 'b') u++;
    double v;
    if (*u || nvs_parse_decimal(num, &v) != NVS_NUM_OK) return 0;
    *b = ldexp(v, shift);
    return 1;
}

int nvs_size_hint(const char *s, size_t *bytes, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    size_t probe;
    double b;
    if (!s || !nvs_parse_size(s, &probe) || !decimal_bytes(s, &b)) return 0;
    const char *what = "sizes are whole bytes with an optional K/M/G/T suffix (powers of 1024)";
    if (b != floor(b)) {
        *bytes = 0;
        snprintf(buf, len, "%s: %.6g bytes is no whole number", what, b);
        return 1;
    }
    if (b < 1 || b >= 9007199254740992.0) return 0; /* 2^53: every integer below it exact in a double */
    unsigned long long w = (unsigned long long)b;
    int k = 0; /* the largest unit that divides it: 1536K, not 1572864 */
    while (k < 4 && w % 1024 == 0) w /= 1024, k++;
    char sfx[2] = {k ? units[k - 1] : '\0', '\0'};
    *bytes = (size_t)b;
    snprintf(buf, len, "%s: write %llu%s", what, w, sfx);
    return 1;
}

int nvs_parse_size_whole(const char *s, size_t *out, char *why, size_t wl)
{
    char hint[192];
    size_t b;
    if (wl) why[0] = '\0';
    double zero;
    if (!nvs_parse_size(s, out)) return 0;
    if (s && decimal_bytes(s, &zero) && zero == 0) { /* "0.0" is the 0 that "0" is: the caller says 0 is too small */
        *out = 0;
        return 0;
    }
    if (!nvs_size_hint(s, &b, hint, sizeof hint)) return -1;
    if (!b) { /* no whole number of bytes: nccl-tests would cut 1.3K to 1331, nvscale says so */
        if (wl) snprintf(why, wl, "%s", hint);
        return -1;
    }
    *out = b;
    return 0;
}

int nvs_parse_long(const char *s, long *out)
{
    if (!s) return -1;
    const char *d = *s == '-' ? s + 1 : s;
    if (!is_digit(*d)) return -1;
    for (const char *c = d; *c; c++)
        if (!is_digit(*c)) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || errno) return -1;
    *out = v;
    return 0;
}

int nvs_parse_double(const char *s, double *out)
{
    if (!s) return -1;
    int neg = *s == '-';
    double v;
    if (nvs_parse_decimal(s + neg, &v) != NVS_NUM_OK) return -1;
    *out = neg ? 0.0 - v : v; /* 0.0 - 0.0 is +0: "-0" reads as 0, never a -0 printed as "-0" or -0.0 */
    return 0;
}

int nvs_parse_percent(const char *s, double *out)
{
    if (!s) return -1;
    size_t l = strlen(s);
    if (!l || s[l - 1] != '%') return nvs_parse_double(s, out);
    char *num = strndup(s, l - 1); /* the number without its '%': nvs_parse_double reads a whole string */
    int rc = num ? nvs_parse_double(num, out) : -1;
    free(num);
    return rc;
}

char *nvs_format_size(size_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    size_t v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%zu %s", v, units[u]);
    return buf;
}

int nvs_list_split(const char *s, char **copy, char **items, int max, char *err, size_t errlen)
{
    *copy = NULL;
    if (!s || !*s) {
        snprintf(err, errlen, "empty list");
        return -1;
    }
    if (!(*copy = strdup(s))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = 0;
    for (char *p = *copy;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (!*p) {
            snprintf(err, errlen, "empty item in '%s' (items are separated by single commas)", s);
            return -1;
        }
        if (n == max) {
            snprintf(err, errlen, "more than %d items in '%s'", max, s);
            return -1;
        }
        items[n++] = p;
        if (!c) break;
        p = c + 1;
    }
    return n;
}
