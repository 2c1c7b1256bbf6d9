/* Checks of a saved hwloc XML's text before hwloc reads it (topo_xml_lint.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "topo/topo_xml_lint.h"

/* hwloc's bitmap text (hwloc_bitmap_sscanf): comma-separated 0x-prefixed hex words, the first possibly the
 * infinite "0xf...f". Anything else (an empty word: ",0x00000002") trips an assertion in hwloc 2.9 (found by
 * fuzz/fuzz_hwloc_xml.c; lstopo aborts the same way). */
static int bitmap_ok(const char *v, const char *end)
{
    if (end - v >= 7 && !strncmp(v, "0xf...f", 7)) {
        v += 7;
        if (v == end) return 1;
        if (*v++ != ',') return 0;
    }
    for (;;) {
        if (end - v < 3 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return 0;
        v += 2;
        int digits = 0;
        while (v < end && isxdigit((unsigned char)*v)) v++, digits++;
        if (!digits || digits > 16) return 0;
        if (v == end) return 1;
        if (*v++ != ',') return 0;
    }
}

/* The value of attribute name in the tag [p, end): its first character, *vend its closing quote; NULL if the
 * tag has no such attribute (one preceded by white space: "complete_cpuset" is not "cpuset") or it is not
 * quoted. Set *bad when the attribute is there but its value is unterminated. XML quotes a value with " or '
 * (XML 1.0, AttValue); hwloc writes ", libxml2 reads both, and a file passed through another XML tool may hold
 * ' (read as "unterminated", such a file was refused with a message saying hwloc would drop its devices). */
static const char *attr_value(const char *p, const char *end, const char *name, const char **vend, int *bad)
{
    size_t l = strlen(name);
    for (const char *q = p + 1; q < end; q++) {
        if (q[-1] != ' ' && q[-1] != '\t' && q[-1] != '\n' && q[-1] != '\r') continue;
        if ((size_t)(end - q) <= l + 1 || strncmp(q, name, l) || q[l] != '=') continue;
        const char *v = q + l + 1;
        if ((*v != '"' && *v != '\'') || !(*vend = memchr(v + 1, *v, (size_t)(end - v - 1)))) {
            *bad = 1;
            return NULL;
        }
        return v + 1;
    }
    return NULL;
}

/* Calls fn on every "<object" tag of text, with its line, until fn returns non-zero (returned, with *line). */
static int each_object(const char *text, int *line, int (*fn)(const char *p, const char *end, void *arg), void *arg)
{
    *line = 1;
    const char *lstart = text;
    for (const char *p = text; (p = strstr(p, "<object"));) {
        for (; lstart < p; lstart++) *line += *lstart == '\n';
        const char *end = strchr(p, '>');
        if (!end) return 0; /* unterminated: hwloc refuses it cleanly */
        int r = fn(p, end, arg);
        if (r) return r;
        p = end;
    }
    return 0;
}

static int sets_of(const char *p, const char *end, void *arg)
{
    (void)arg;
    static const char *const names[6] = {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset",
                                         "allowed_cpuset", "allowed_nodeset"};
    int seen[6] = {0};
    for (int k = 0; k < 6; k++) {
        const char *ve = NULL;
        int bad = 0;
        const char *v = attr_value(p, end, names[k], &ve, &bad);
        if (bad || (v && !bitmap_ok(v, ve))) return -1;
        seen[k] = v != NULL;
    }
    return seen[0] != seen[1] || seen[2] != seen[3] ? -1 : 0;
}

int nvs_topo_xml_lint_sets(const char *text, int *line) { return each_object(text, line, sets_of, NULL); }

/* [v, end) matches pat: 'h' one hex digit, 'H' one to four more hex digits (a PCI domain: 4 digits, up to 8 on
 * hosts with 32-bit domains), any other character itself. What hwloc writes ("%04x:%02x:%02x.%01x" and
 * "%04x [%04x:%04x] [%04x:%04x] %02x", its XML export); hwloc's reader takes those and ignores the rest. */
static int matches(const char *v, const char *end, const char *pat)
{
    for (; *pat; pat++) {
        if (*pat == 'H') {
            int n = 0;
            while (n < 4 && v < end && isxdigit((unsigned char)*v)) v++, n++;
            continue;
        }
        if (v == end) return 0;
        if (*pat == 'h' ? !isxdigit((unsigned char)*v) : *v != *pat) return 0;
        v++;
    }
    return v == end;
}

typedef struct {
    char *attr, *value;
    size_t attrlen, valuelen;
} pci_bad;

static int pci_of(const char *p, const char *end, void *arg)
{
    static const struct {
        const char *name, *pattern;
    } checks[] = {{"pci_busid", "hhhhH:hh:hh.h"}, {"pci_type", "hhhh [hhhh:hhhh] [hhhh:hhhh] hh"}};
    pci_bad *b = arg;
    for (size_t k = 0; k < sizeof checks / sizeof checks[0]; k++) {
        const char *ve = NULL;
        int bad = 0;
        const char *v = attr_value(p, end, checks[k].name, &ve, &bad);
        if (!bad && (!v || matches(v, ve, checks[k].pattern))) continue;
        snprintf(b->attr, b->attrlen, "%s", checks[k].name);
        if (v) {
            size_t n = 0; /* the value as read, a byte that does not print as '?' (it goes to a terminal) */
            for (; b->valuelen && n + 1 < b->valuelen && v + n < ve; n++)
                b->value[n] = isprint((unsigned char)v[n]) ? v[n] : '?';
            if (b->valuelen) b->value[n] = 0;
        } else
            snprintf(b->value, b->valuelen, "(unterminated)");
        return -1;
    }
    return 0;
}

int nvs_topo_xml_lint_pci(const char *text, int *line, char *attr, size_t attrlen, char *value, size_t valuelen)
{
    pci_bad b = {attr, value, attrlen, valuelen};
    if (attrlen) attr[0] = 0;
    if (valuelen) value[0] = 0;
    return each_object(text, line, pci_of, &b);
}
