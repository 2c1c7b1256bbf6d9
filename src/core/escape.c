/* See escape.h. One pass over the input that decides, per character, the bytes to write; a sink either fills a
 * bounded buffer or writes a stream. */
#include "core/escape.h"

#include <ctype.h>
#include <string.h>

typedef struct {
    char *buf; /* bounded buffer, or NULL with f set */
    size_t len, used;
    int full;  /* the buffer could not take the last piece */
    size_t reserve; /* kept free at the end: "...", a closing quote, the NUL */
    int prom;       /* Prometheus: a visible escape's backslash is itself escaped */
    FILE *f;
    int err;
} sink;

/* Appends a piece that must not be split (an escape sequence, a UTF-8 character), keeping room for "..." */
static void put(sink *k, const char *p, size_t n)
{
    if (k->f) {
        if (!k->err && fwrite(p, 1, n, k->f) != n) k->err = 1;
        return;
    }
    if (k->full) return;
    if (k->used + n + k->reserve > k->len) {
        k->full = 1;
        return;
    }
    memcpy(k->buf + k->used, p, n);
    k->used += n;
}

/* Length of the valid UTF-8 sequence at s (2..4), with its code point; 0 if the bytes are not UTF-8. */
static size_t utf8_len(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    size_t n;
    unsigned v, min;
    if (c >= 0xc2 && c <= 0xdf) n = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) n = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, v = c & 0x07, min = 0x10000;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return n;
}

/* C1 controls and the bidirectional embeddings/overrides/isolates reorder or hide text on a terminal or page */
static int hidden_cp(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters (its Char production stops at U+FFFD): one in a
 * JUnit file made the whole file unreadable to its parser. (Surrogates never get here: utf8_len refuses them.) */
static int xml_excluded(unsigned cp) { return cp == 0xfffe || cp == 0xffff; }

static void put_hex(sink *k, unsigned char c)
{
    if (k->prom) put(k, "\\", 1);
    char t[8];
    static const char hex[] = "0123456789abcdef";
    t[0] = '\\', t[1] = 'x', t[2] = hex[c >> 4], t[3] = hex[c & 15];
    put(k, t, 4);
}

static void put_control(sink *k, unsigned char c, nvs_esc_kind kind)
{
    if (kind == NVS_ESC_XMLATTR && (c == '\t' || c == '\n' || c == '\r')) {
        put(k, c == '\t' ? "&#9;" : c == '\n' ? "&#10;" : "&#13;", c == '\t' ? 4 : 5);
        return;
    }
    if (kind == NVS_ESC_PROM && c == '\n') {
        put(k, "\\n", 2);
        return;
    }
    if (k->prom && (c == '\n' || c == '\r' || c == '\t' || c == 0x1b)) put(k, "\\", 1); /* put_hex does its own */
    switch (c) {
    case '\n': put(k, "\\n", 2); break;
    case '\r': put(k, "\\r", 2); break;
    case '\t': put(k, "\\t", 2); break;
    case 0x1b: put(k, "\\e", 2); break;
    default: put_hex(k, c); break;
    }
}

static int alnum(unsigned char c) { return isalnum(c) || c >= 0x80; }

static int needs_quotes(nvs_esc_kind kind, const char *s)
{
    return kind == NVS_ESC_CSV && s && strpbrk(s, ",\"\r\n") != NULL;
}

/* Everything but a CSV field's closing quote, which the callers add after a possible "..." */
static void run(nvs_esc_kind kind, const char *in, sink *k)
{
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    if (needs_quotes(kind, in)) put(k, "\"", 1);
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = s[i];
        if (c >= 0x80) {
            unsigned cp;
            size_t n = utf8_len(s + i, &cp);
            if (!n) {
                put_hex(k, c);
            } else if (hidden_cp(cp) || ((kind == NVS_ESC_XML || kind == NVS_ESC_XMLATTR) && xml_excluded(cp))) {
                char t[16];
                if (k->prom) put(k, "\\", 1);
                int w = snprintf(t, sizeof t, "\\u{%04x}", cp);
                put(k, t, (size_t)w);
                i += n - 1;
            } else {
                put(k, (const char *)s + i, n);
                i += n - 1;
            }
            continue;
        }
        if (c < 0x20 || c == 0x7f) {
            if (kind == NVS_ESC_CSV && (c == '\n' || c == '\r' || c == '\t')) put(k, (const char *)&s[i], 1);
            else if (kind == NVS_ESC_TERM && c == '\t') put(k, "\t", 1);
            else if (kind == NVS_ESC_XML && (c == '\t' || c == '\n' || c == '\r')) put(k, (const char *)&s[i], 1);
            else put_control(k, c, kind);
            continue;
        }
        switch (kind) {
        case NVS_ESC_MD:
            if (c == '<') put(k, "&lt;", 4);
            else if (c == '>') put(k, "&gt;", 4);
            else if (c == '&') put(k, "&amp;", 5);
            else if (strchr("\\`*[]|", c) ||
                     (c == '_' && !(i > 0 && alnum(s[i - 1]) && s[i + 1] && alnum(s[i + 1])))) {
                char t[2] = {'\\', (char)c};
                put(k, t, 2);
            } else
                put(k, (const char *)&s[i], 1);
            break;
        case NVS_ESC_HTML:
            if (c == '<') put(k, "&lt;", 4);
            else if (c == '>') put(k, "&gt;", 4);
            else if (c == '&') put(k, "&amp;", 5);
            else if (c == '"') put(k, "&quot;", 6);
            else if (c == '\'') put(k, "&#39;", 5);
            else put(k, (const char *)&s[i], 1);
            break;
        case NVS_ESC_XML:
        case NVS_ESC_XMLATTR:
            if (c == '<') put(k, "&lt;", 4);
            else if (c == '>') put(k, "&gt;", 4);
            else if (c == '&') put(k, "&amp;", 5);
            else if (c == '"') put(k, "&quot;", 6);
            else if (c == '\'') put(k, "&apos;", 6);
            else put(k, (const char *)&s[i], 1);
            break;
        case NVS_ESC_PROM:
            if (c == '\\') put(k, "\\\\", 2);
            else if (c == '"') put(k, "\\\"", 2);
            else put(k, (const char *)&s[i], 1);
            break;
        case NVS_ESC_CSV:
            if (c == '"') put(k, "\"\"", 2);
            else put(k, (const char *)&s[i], 1);
            break;
        default: put(k, (const char *)&s[i], 1); break;
        }
    }
}

char *nvs_esc(nvs_esc_kind kind, const char *s, char *buf, size_t len)
{
    if (!buf || !len) return buf;
    int quote = needs_quotes(kind, s);
    sink k = {.buf = buf, .len = len, .reserve = 4 + (size_t)quote, .prom = kind == NVS_ESC_PROM};
    if (len < k.reserve + 2) { /* not even one quoted character and "..." */
        buf[0] = '\0';
        return buf;
    }
    run(kind, s, &k);
    if (k.full) {
        memcpy(buf + k.used, "...", 3);
        k.used += 3;
    }
    if (quote) buf[k.used++] = '"';
    buf[k.used] = '\0';
    return buf;
}

int nvs_esc_fputs(nvs_esc_kind kind, const char *s, FILE *f)
{
    sink k = {.f = f, .prom = kind == NVS_ESC_PROM};
    run(kind, s, &k);
    if (needs_quotes(kind, s)) put(&k, "\"", 1);
    return k.err || ferror(f) ? EOF : 0;
}

int nvs_sh_fputs(const char *s, FILE *f)
{
    static const char plain[] = "_@%+=:,./-";
    int quote = !s || !*s;
    for (const char *p = s; p && *p && !quote; p++)
        quote = !(isalnum((unsigned char)*p) && (unsigned char)*p < 0x80) && !strchr(plain, *p);
    if (!quote) return fputs(s, f) == EOF ? EOF : 0;
    int bad = fputc('\'', f) == EOF;
    for (const char *p = s; p && *p; p++)
        bad |= (*p == '\'' ? fputs("'\\''", f) : fputc(*p, f)) == EOF;
    bad |= fputc('\'', f) == EOF;
    return bad || ferror(f) ? EOF : 0;
}
