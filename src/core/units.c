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

int nvs_parse_size(const char *s, size_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s)) return -1;
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

int nvs_parse_long(const char *s, long *out)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

int nvs_parse_double(const char *s, double *out)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v)) return -1;
    *out = v;
    return 0;
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
