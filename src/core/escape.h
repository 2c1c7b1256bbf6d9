/* Escaping at every output boundary (PURE). Text that comes from a run.json or another input file (host, GPU,
 * collective and model names, argv, environment values) is written through one of these, never raw:
 *
 *   md     Markdown text: a table cell, a heading, a paragraph. Nothing can end the line, the cell or the
 *          block, start a link, image, code span or emphasis, or become HTML: '\' '`' '*' '[' ']' '|' '_' (unless
 *          inside a word: all_reduce stays as it is) are backslash-escaped; '<' '>' '&' become &lt; &gt; &amp;.
 *   html   text or an attribute value inside HTML (in Markdown or not): & < > " ' as entities.
 *   csv    one CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF; quotes doubled.
 *   term   a terminal: printable text only.
 *   xml    XML 1.0 text (JUnit): & < > " ' as entities; TAB, LF and CR stay (a text may have several lines)
 *   xmlattr   an XML attribute value: the same, with TAB, LF and CR as character references (a parser turns
 *          them into spaces otherwise). Other C0 characters, and U+FFFE and U+FFFF, are not allowed in XML at
 *          all, not even as references: both forms show them as visible text.
 *   prom   a Prometheus label value (exposition format 0.0.4): backslash, double quote and LF escaped as the
 *          format requires (\\, \", \n); other control characters as the visible text \\xNN.
 *
 * Every kind also makes control characters visible instead of passing them on: C0 (0x00-0x1f but TAB in csv and
 * term), DEL, the C1 range (U+0080-U+009F, which some terminals take as CSI), the bidirectional overrides
 * (U+202A-U+202E, U+2066-U+2069, "Trojan source") and bytes that are not UTF-8 come out as \xNN or \u{NNNN}.
 * A line break in md/html/term is shown as \n, never a new line (xml and prom escape it their format's way): a
 * host named "x\nresult: PASS" prints as
 * x\nresult: PASS on one line.
 *
 * Each function writes into buf (len >= 8) and returns buf; text that does not fit is cut at a character
 * boundary and ends in "...". NULL input gives "". */
#ifndef NVS_ESCAPE_H
#define NVS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    NVS_ESC_MD = 0,
    NVS_ESC_HTML,
    NVS_ESC_CSV,
    NVS_ESC_TERM,
    NVS_ESC_XML,
    NVS_ESC_XMLATTR,
    NVS_ESC_PROM
} nvs_esc_kind;

char *nvs_esc(nvs_esc_kind kind, const char *s, char *buf, size_t len);
static inline char *nvs_esc_md(const char *s, char *buf, size_t len) { return nvs_esc(NVS_ESC_MD, s, buf, len); }
static inline char *nvs_esc_html(const char *s, char *buf, size_t len) { return nvs_esc(NVS_ESC_HTML, s, buf, len); }
static inline char *nvs_esc_csv(const char *s, char *buf, size_t len) { return nvs_esc(NVS_ESC_CSV, s, buf, len); }
static inline char *nvs_esc_term(const char *s, char *buf, size_t len) { return nvs_esc(NVS_ESC_TERM, s, buf, len); }

/* The whole text, escaped, to a stream (no length limit). Returns EOF on a write error, like fputs. */
int nvs_esc_fputs(nvs_esc_kind kind, const char *s, FILE *f);

/* One word of a POSIX shell command line (a command printed for the user to copy: compare's mpirun sequence), to
 * a stream, never cut. A word of only A-Z a-z 0-9 and _ @ % + = : , . / - is written as it is; any other (empty,
 * a space, a quote, $ ` \ * ? ; & | < > ( ) ~ # !, a line break, non-ASCII) inside single quotes, where the shell
 * expands nothing and a single quote is written '\'' (POSIX.1-2017 XCU 2.2.2 and 2.2.3). Returns EOF on a write
 * error. */
int nvs_sh_fputs(const char *s, FILE *f);

/* Buffer sizes that hold any escaped form of a text of n bytes uncut: each byte becomes at most 6 (&quot;; a
 * 3-byte character at most 8, \u{NNNN}), plus CSV's two quotes, the room kept for "..." and the NUL. */
#define NVS_ESC_SIZE(n) (6 * (n) + 6)

#endif
