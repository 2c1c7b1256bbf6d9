/* Checks of a saved hwloc XML's text before hwloc reads it (PURE: no hwloc, no I/O), for what hwloc would crash
 * on or drop without a word. Used by topo_discover.c's offline path; testable without a GPU. */
#ifndef NVS_TOPO_XML_LINT_H
#define NVS_TOPO_XML_LINT_H

#include <stddef.h>

/* Objects hwloc 2.9 cannot take: a cpuset without its complete_cpuset (or a nodeset without its
 * complete_nodeset) crashes hwloc_topology_load, a set that is not bitmap text trips an assertion; both found by
 * fuzz/fuzz_hwloc_xml.c. 0, or -1 with *line the line of the first such object. */
int nvs_topo_xml_lint_sets(const char *text, int *line);

/* PCI attributes hwloc would ignore, and with them the device: a pci_busid that is not DDDD:BB:DD.F or a
 * pci_type that is not "CCCC [VVVV:DDDD] [SSSS:SSSS] RR" makes hwloc 2.10 drop that PCI device (lstopo shows it
 * only with HWLOC_XML_VERBOSE=1: "ignoring invalid pci_busid format string"), so a GPU would vanish from the
 * topology. 0, or -1 with *line its line and attr/value (NUL-terminated, cut to their sizes) the first bad one. */
int nvs_topo_xml_lint_pci(const char *text, int *line, char *attr, size_t attrlen, char *value, size_t valuelen);

#endif
