/* The values of a profile's lines: numbers (decimal only), lists of whole numbers, names, and the split of a line
 * into tokens; each refused with its line (nvs_prof_fail). */
#include "workload/profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/profile_priv.h"

/* ---- numbers ------------------------------------------------------------------------------------------- */

/* Plain or scientific decimal notation only (core/units.h, the one number parser of flags and files): 123, 1.5,
 * .5, 2.5e7, 1E+3. No sign, no suffix, no hex, no inf/nan: K/M suffixes are refused because they are ambiguous
 * between 1000 and 1024. Returns 0 or -1 (message set). */
int nvs_prof_number(struct parser *ps, const char *key, const char *s, double *out)
{
    nvs_num_status st = nvs_parse_decimal(s, out);
    switch (st) {
    case NVS_NUM_OK: return 0;
    case NVS_NUM_EMPTY: return nvs_prof_fail(ps, "%s= needs a value", key), -1;
    case NVS_NUM_NEGATIVE: return nvs_prof_fail(ps, "%s=%s: must not be negative", key, s), -1;
    case NVS_NUM_SUFFIX:
        return nvs_prof_fail(ps, "%s=%s: no K/M/G suffixes (ambiguous between 1000 and 1024): write the number, "
                                 "e.g. 25557032 or 2.5557032e7",
                             key, s),
               -1;
    case NVS_NUM_RANGE: return nvs_prof_fail(ps, "%s=%s: not a finite number", key, s), -1;
    case NVS_NUM_TINY:
        return nvs_prof_fail(
                   ps,
                   "%s=%s: too small: not 0, but below the smallest number held (2.2e-308); write 0 or a larger "
                   "value",
                   key, s),
               -1;
    default:
        return nvs_prof_fail(
                   ps, "%s=%s: not a finite decimal number (plain or scientific notation, e.g. 4096 or 2.5e7)", key, s),
               -1;
    }
}

/* A whole number (element count, GEMM dimension) in [lo, hi]. */
int nvs_prof_count(struct parser *ps, const char *key, const char *s, double lo, double hi, double *out)
{
    double v;
    if (nvs_prof_number(ps, key, s, &v)) return -1;
    if (v != floor(v)) return nvs_prof_fail(ps, "%s=%s: must be a whole number", key, s), -1;
    if (v < lo || v > hi) return nvs_prof_fail(ps, "%s=%s: must be between %.0f and %.0f", key, s, lo, hi), -1;
    *out = v;
    return 0;
}

/* key=V1,V2,...: exactly n whole numbers in [lo, hi]; which[i] names value i in messages, `names` all of them. */
int nvs_prof_list(struct parser *ps, const char *key, const char *val, const char *const *which, const char *names,
                         int n, double lo, double hi, double *out)
{
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    int got = 0;
    char *part = buf;
    for (;;) {
        char *comma = strchr(part, ',');
        if (comma) *comma = '\0';
        if (got < n && nvs_prof_count(ps, which[got], part, lo, hi, &out[got])) return -1;
        got++;
        if (!comma) break;
        part = comma + 1;
    }
    if (got != n) return nvs_prof_fail(ps, "%s=%s: needs %d values %s, got %d", key, val, n, names, got), -1;
    return 0;
}

/* A plain positive integer (repeat count, batch): digits only. */
int nvs_prof_int(struct parser *ps, const char *what, const char *s, long lo, long hi, long *out)
{
    const char *c = s;
    while (*c >= '0' && *c <= '9') c++;
    if (c == s || *c || c - s > 9)
        return nvs_prof_fail(ps, "%s '%s': expected a whole number %ld..%ld", what, s, lo, hi), -1;
    long v = strtol(s, NULL, 10);
    if (v < lo || v > hi) return nvs_prof_fail(ps, "%s %ld: must be %ld..%ld", what, v, lo, hi), -1;
    *out = v;
    return 0;
}

/* ---- lines and tokens ------------------------------------------------------------------------------------ */

/* Splits `line` in place: blanks separate tokens, a double-quoted token may hold blanks (no escapes), '#'
 * outside quotes starts a comment. quoted[i] says whether token i was quoted. */
int nvs_prof_tokenize(struct parser *ps, char *line, char **tok, int *quoted, int *ntok)
{
    int n = 0;
    char *c = line;
    for (;;) {
        while (*c == ' ' || *c == '\t') c++;
        if (!*c || *c == '#') break;
        if (n == MAX_TOKENS) return nvs_prof_fail(ps, "too many fields on one line (at most %d)", MAX_TOKENS), -1;
        if (*c == '"') {
            char *end = strchr(c + 1, '"');
            if (!end) return nvs_prof_fail(ps, "unterminated quoted string"), -1;
            if (end[1] && end[1] != ' ' && end[1] != '\t' && end[1] != '#')
                return nvs_prof_fail(ps, "text right after a closing quote"), -1;
            *end = '\0';
            quoted[n] = 1;
            tok[n++] = c + 1;
            c = end + 1;
            continue;
        }
        quoted[n] = 0;
        tok[n++] = c;
        while (*c && *c != ' ' && *c != '\t' && *c != '#') {
            if (*c == '"') return nvs_prof_fail(ps, "stray quote in '%s'", tok[n - 1]), -1;
            c++;
        }
        if (*c == '#') {
            *c = '\0';
            break;
        }
        if (*c) *c++ = '\0';
    }
    *ntok = n;
    return 0;
}

/* Names: printable ASCII except blank, quote, '#' and '='; profile names also only [A-Za-z0-9._-] because
 * they end up in file names and JSON keys. */
int nvs_prof_name(struct parser *ps, const char *what, const char *s, size_t cap, int strict)
{
    size_t len = strlen(s);
    if (len == 0) return nvs_prof_fail(ps, "empty %s", what), -1;
    if (len >= cap)
        return nvs_prof_fail(ps, "%s '%.20s...' is %zu characters long: at most %zu", what, s, len, cap - 1), -1;
    for (const char *c = s; *c; c++) {
        unsigned char u = (unsigned char)*c;
        int ok = strict ? ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '.' ||
                           u == '_' || u == '-')
                        : (u > ' ' && u < 0x7f && u != '"' && u != '#' && u != '=');
        if (!ok) return nvs_prof_fail(ps, "%s '%s': character '%c' not allowed", what, s, *c), -1;
    }
    return 0;
}
