/* Formatting shared by the report's Markdown writers (report_md.c and its sections, report_md_int.h;
 * report_topo.c): table cells and numbers, with an em dash for what is unknown. Internal to the report layer. */
#ifndef NVS_REPORT_MD_FMT_H
#define NVS_REPORT_MD_FMT_H

#include <math.h>
#include <stdio.h>

#include "core/escape.h"
#include "core/units.h"

#define DASH "—"

/* Text from a run.json in Markdown (a table cell, a heading, a paragraph): core/escape.h, so that a host or
 * collective name cannot end the cell, the row or the block, nor become a link, an image or HTML. */
static inline void cell(FILE *f, const char *s)
{
    if (!s || !*s) {
        fputs(DASH, f);
        return;
    }
    nvs_esc_fputs(NVS_ESC_MD, s, f);
}

/* The same for printf: escaped into buf */
static inline const char *md(const char *s, char *buf, size_t len) { return nvs_esc_md(s, buf, len); }

static inline const char *fnum(double v, const char *fmt, char *buf, size_t len)
{
    if (isnan(v)) return DASH;
    snprintf(buf, len, fmt, v);
    return buf;
}

static inline const char *fsize(double bytes, char *buf, size_t len)
{
    if (isnan(bytes) || bytes < 0) return DASH;
    return nvs_format_size((size_t)bytes, buf, len);
}

static inline const char *fint(long long v, char *buf, size_t len)
{
    if (v < 0) return DASH;
    snprintf(buf, len, "%lld", v);
    return buf;
}

#endif
