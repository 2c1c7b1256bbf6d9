/* The checks of a saved hwloc XML's text before hwloc reads it (topo/topo_xml_lint.h): bad sets (hwloc crashes)
 * and bad PCI attributes (hwloc drops the device without a word), each with the line it is on. */
#include <string.h>

#include "t.h"
#include "topo/topo_xml_lint.h"

#define GPU(busid, type) "  <object type=\"PCIDev\" pci_busid=\"" busid "\" pci_type=\"" type "\">\n"

static void t_pci_good(void)
{
    int line = 0;
    char a[16], v[64];
    /* what hwloc 2.x writes, a 32-bit domain, upper-case hex (sscanf takes it): all accepted */
    const char *ok = "<topology>\n" GPU("0000:13:00.0", "0300 [10de:2204] [10de:1454] a1")
        GPU("00010000:c1:1f.7", "0302 [10DE:2335] [10de:18BE] a1") "  <object type=\"Bridge\" pci_busid=\"0000:00:01.0\">\n"
        "  <object type=\"Package\" cpuset=\"0x000000ff\" complete_cpuset=\"0x000000ff\">\n</topology>\n";
    T_EQ_I(nvs_topo_xml_lint_pci(ok, &line, a, sizeof a, v, sizeof v), 0);
    T_EQ_I(nvs_topo_xml_lint_sets(ok, &line), 0);
    /* values in single quotes (XML's other AttValue form, which libxml2 and so hwloc read) are values too: they
     * read as "unterminated" and the file was refused */
    const char *sq = "<topology>\n  <object type='PCIDev' pci_busid='0000:13:00.0' pci_type='0300 [10de:2204] "
                     "[10de:1454] a1'>\n  <object type=\"Package\" cpuset='0x000000ff' complete_cpuset='0x000000ff'>\n"
                     "</topology>\n";
    T_EQ_I(nvs_topo_xml_lint_pci(sq, &line, a, sizeof a, v, sizeof v), 0);
    T_EQ_I(nvs_topo_xml_lint_sets(sq, &line), 0);
    /* and still checked: a bad value in single quotes is found, with the value */
    const char *sqbad = "<topology>\n  <object type='PCIDev' pci_busid='0000:zz:00.0' pci_type='0300 [10de:2204] "
                        "[10de:1454] a1'>\n  <object cpuset='0x00000001,' complete_cpuset='0x1'>\n</topology>\n";
    T_EQ_I(nvs_topo_xml_lint_pci(sqbad, &line, a, sizeof a, v, sizeof v), -1);
    T_EQ_S(v, "0000:zz:00.0");
    T_EQ_I(nvs_topo_xml_lint_sets(sqbad, &line), -1);
    T_EQ_I(line, 3);
}

static void t_pci_bad(void)
{
    static const struct {
        const char *obj, *attr, *value;
    } cases[] = {
        {GPU("0000:zz:00.0", "0300 [10de:2204] [10de:1454] a1"), "pci_busid", "0000:zz:00.0"},
        {GPU("0000:13:00", "0300 [10de:2204] [10de:1454] a1"), "pci_busid", "0000:13:00"},
        {GPU("13:00.0", "0300 [10de:2204] [10de:1454] a1"), "pci_busid", "13:00.0"},
        {GPU("0000:13:00.0 ", "0300 [10de:2204] [10de:1454] a1"), "pci_busid", "0000:13:00.0 "},
        {GPU("0000:13:00.0", "0300 [10de:2204] a1"), "pci_type", "0300 [10de:2204] a1"},
        {GPU("0000:13:00.0", "0300 [10de:2204] [10de:1454]"), "pci_type", "0300 [10de:2204] [10de:1454]"},
        {GPU("0000:13:00.0", "0300 [10de:2204] [10de:1454] a\x01"), "pci_type", "0300 [10de:2204] [10de:1454] a?"},
        {"  <object type=\"PCIDev\" pci_busid=\"0000:13:00.0>\n", "pci_busid", "(unterminated)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512], a[16], v[64];
        snprintf(text, sizeof text, "<topology>\n%s%s</topology>\n", GPU("0000:14:00.0", "0300 [10de:2204] [10de:1454] a1"),
                 cases[i].obj);
        int line = 0;
        T_EQ_I(nvs_topo_xml_lint_pci(text, &line, a, sizeof a, v, sizeof v), -1);
        T_EQ_I(line, 3);
        T_EQ_S(a, cases[i].attr);
        T_EQ_S(v, cases[i].value);
    }
    /* a long value is cut to the buffer, terminated */
    char a[16], v[8];
    int line = 0;
    T_EQ_I(nvs_topo_xml_lint_pci("<object pci_busid=\"0000:13:00.0.0.0.0\">", &line, a, sizeof a, v, sizeof v), -1);
    T_EQ_S(v, "0000:13");
    T_EQ_I(line, 1);
    /* a name that only ends like the attribute is another attribute */
    T_EQ_I(nvs_topo_xml_lint_pci("<object xpci_busid=\"zz\">", &line, a, sizeof a, v, sizeof v), 0);
}

static void t_sets(void)
{
    int line = 0;
    T_EQ_I(nvs_topo_xml_lint_sets("<topology>\n<object cpuset=\"0x1\">\n", &line), -1);
    T_EQ_I(line, 2);
    T_EQ_I(nvs_topo_xml_lint_sets("<object cpuset=\"0x1,,0x2\" complete_cpuset=\"0x1\">", &line), -1);
    T_EQ_I(nvs_topo_xml_lint_sets("<object cpuset=\"0xf...f,0x1\" complete_cpuset=\"0x1\">", &line), 0);
    T_EQ_I(nvs_topo_xml_lint_sets("<object nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset=\"1\">", &line), -1);
}

T_LIST = {T_CASE(t_pci_good), T_CASE(t_pci_bad), T_CASE(t_sets)};
T_MAIN
