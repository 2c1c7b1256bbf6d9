/* core/escape: every output kind, the hostile names of issue 14 (a newline that starts a fake line or Markdown
 * block, <script>, <img onerror>, pipes that add table cells, ESC sequences, bidi overrides, broken UTF-8), and
 * the cut of a text that does not fit. */
#include "core/escape.h"

#include <stdlib.h>

#include "t.h"

static char b[512];

static void t_markdown(void)
{
    T_EQ_S(nvs_esc_md("all_reduce", b, sizeof b), "all_reduce"); /* inside a word: no emphasis, unchanged */
    T_EQ_S(nvs_esc_md("gpu-node-07.example.com", b, sizeof b), "gpu-node-07.example.com");
    T_EQ_S(nvs_esc_md("<script>alert(1)</script>", b, sizeof b), "&lt;script&gt;alert(1)&lt;/script&gt;");
    T_EQ_S(nvs_esc_md("<img src=x onerror=alert(1)>", b, sizeof b), "&lt;img src=x onerror=alert(1)&gt;");
    T_EQ_S(nvs_esc_md("a|b", b, sizeof b), "a\\|b");
    T_EQ_S(nvs_esc_md("x\n# PASS", b, sizeof b), "x\\n# PASS");
    T_EQ_S(nvs_esc_md("[click](javascript:alert(1))", b, sizeof b), "\\[click\\](javascript:alert(1))");
    T_EQ_S(nvs_esc_md("![i](http://x/y.png)", b, sizeof b), "!\\[i\\](http://x/y.png)");
    T_EQ_S(nvs_esc_md("`code` *bold* _it_ \\", b, sizeof b), "\\`code\\` \\*bold\\* \\_it\\_ \\\\");
    T_EQ_S(nvs_esc_md("a&amp;b", b, sizeof b), "a&amp;amp;b");
    T_EQ_S(nvs_esc_md(NULL, b, sizeof b), "");
}

static void t_html(void)
{
    T_EQ_S(nvs_esc_html("<a href=\"x\" title='y'>&</a>", b, sizeof b),
           "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    T_EQ_S(nvs_esc_html("line1\nline2", b, sizeof b), "line1\\nline2");
}

static void t_csv(void)
{
    T_EQ_S(nvs_esc_csv("plain", b, sizeof b), "plain");
    T_EQ_S(nvs_esc_csv("a,b", b, sizeof b), "\"a,b\"");
    T_EQ_S(nvs_esc_csv("say \"hi\"", b, sizeof b), "\"say \"\"hi\"\"\"");
    T_EQ_S(nvs_esc_csv("two\nlines", b, sizeof b), "\"two\nlines\"");
    T_EQ_S(nvs_esc_csv("esc\x1b[31mred", b, sizeof b), "esc\\e[31mred");
    /* cut inside a quoted field: still closed */
    char small[12];
    T_EQ_S(nvs_esc_csv("a,bcdefghijklmnop", small, sizeof small), "\"a,bcde...\"");
}

static void t_xml_prom(void)
{
    T_EQ_S(nvs_esc(NVS_ESC_XML, "a<b & \"c\" 'd'\nline2\x01", b, sizeof b),
           "a&lt;b &amp; &quot;c&quot; &apos;d&apos;\nline2\\x01");
    T_EQ_S(nvs_esc(NVS_ESC_XMLATTR, "x\ty\nz", b, sizeof b), "x&#9;y&#10;z");
    /* U+FFFE and U+FFFF are UTF-8 but no XML character: a host named so made the JUnit file unparsable */
    T_EQ_S(nvs_esc(NVS_ESC_XMLATTR, "a\xef\xbf\xbf" "b\xef\xbf\xbe\xef\xbf\xbd", b, sizeof b),
           "a\\u{ffff}b\\u{fffe}\xef\xbf\xbd");
    T_EQ_S(nvs_esc(NVS_ESC_XML, "\xef\xbf\xbf", b, sizeof b), "\\u{ffff}");
    T_EQ_S(nvs_esc(NVS_ESC_MD, "\xef\xbf\xbf", b, sizeof b), "\xef\xbf\xbf"); /* elsewhere it is text */
    /* Prometheus label values: only \\, \" and \n are escapes; a control character is visible text */
    T_EQ_S(nvs_esc(NVS_ESC_PROM, "a\\b \"c\"\nd\x1b", b, sizeof b), "a\\\\b \\\"c\\\"\\nd\\\\e");
    T_EQ_S(nvs_esc(NVS_ESC_PROM, "\x07\xff", b, sizeof b), "\\\\x07\\\\xff");
}

static void t_terminal(void)
{
    /* issue 14: a host named "x\nresult: PASS" printed a fake PASS line */
    T_EQ_S(nvs_esc_term("x\nresult: PASS", b, sizeof b), "x\\nresult: PASS");
    T_EQ_S(nvs_esc_term("\x1b]0;owned\x07\x1b[2J", b, sizeof b), "\\e]0;owned\\x07\\e[2J");
    T_EQ_S(nvs_esc_term("a\rb\x7f", b, sizeof b), "a\\rb\\x7f");
    T_EQ_S(nvs_esc_term("tab\there", b, sizeof b), "tab\there");
    /* UTF-8 passes; C1 CSI (U+009B), bidi override (U+202E) and invalid bytes do not */
    T_EQ_S(nvs_esc_term("Gr\xc3\xbc\xc3\x9f", b, sizeof b), "Gr\xc3\xbc\xc3\x9f");
    T_EQ_S(nvs_esc_term("\xc2\x9b" "2J", b, sizeof b), "\\u{009b}2J");
    T_EQ_S(nvs_esc_term("abc\xe2\x80\xae" "dcba", b, sizeof b), "abc\\u{202e}dcba");
    T_EQ_S(nvs_esc_term("\xff\xfe", b, sizeof b), "\\xff\\xfe");
    T_EQ_S(nvs_esc_term("\xe2\x82", b, sizeof b), "\\xe2\\x82"); /* truncated sequence */
    T_EQ_S(nvs_esc_term("\xc0\xaf", b, sizeof b), "\\xc0\\xaf");  /* overlong '/' */
}

static void t_cut(void)
{
    char s8[8];
    T_EQ_S(nvs_esc_term("abcdefghij", s8, sizeof s8), "abcd...");
    /* an escape sequence is never split */
    T_EQ_S(nvs_esc_term("ab\x1b" "cdef", s8, sizeof s8), "ab\\e...");
    T_EQ_S(nvs_esc_term("abc\x1b" "def", s8, sizeof s8), "abc...");
    char big[NVS_ESC_SIZE(4)];
    T_EQ_S(nvs_esc_html("\"\"\"\"", big, sizeof big), "&quot;&quot;&quot;&quot;");
    T_EQ_S(nvs_esc_term("abc", s8, 3), ""); /* too small for anything: empty, never overrun */
}

static void t_stream(void)
{
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    T_ASSERT(f);
    T_EQ_I(nvs_esc_fputs(NVS_ESC_CSV, "a\"b", f), 0);
    fputc('|', f);
    T_EQ_I(nvs_esc_fputs(NVS_ESC_MD, "x|y", f), 0);
    fclose(f);
    T_EQ_S(mem, "\"a\"\"b\"|x\\|y");
    free(mem);
}

/* one word of a shell command line: plain words as they are, the rest single-quoted with ' as '\'' */
static char *sh_word(const char *w)
{
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    if (!f) return NULL;
    int rc = nvs_sh_fputs(w, f);
    fclose(f);
    if (rc != 0) {
        free(mem);
        return NULL;
    }
    return mem;
}

static void t_shell_word(void)
{
    static const char *const cases[][2] = {
        {"--model", "--model"},
        {"results/h200x2/run.json", "results/h200x2/run.json"},
        {"a=b,c:d@e%f+g", "a=b,c:d@e%f+g"},
        {"", "''"},
        {"x y.json", "'x y.json'"},
        {"it's", "'it'\\''s'"},
        {"$HOME", "'$HOME'"},
        {"*.json", "'*.json'"},
        {"a;rm -rf /", "'a;rm -rf /'"},
        {"~user", "'~user'"},
        {"caf\xc3\xa9", "'caf\xc3\xa9'"}, /* non-ASCII: quoted, bytes kept */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = sh_word(cases[i][0]);
        T_ASSERT(got);
        T_EQ_S(got, cases[i][1]);
        free(got);
    }
}

T_LIST = {T_CASE(t_markdown), T_CASE(t_html), T_CASE(t_csv), T_CASE(t_xml_prom), T_CASE(t_terminal), T_CASE(t_cut), T_CASE(t_stream),
          T_CASE(t_shell_word)};
T_MAIN
