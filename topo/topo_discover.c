/* Discovery: hwloc for locality and the PCIe tree, NVML for links, CUDA for ordinals and P2P, combined into one
 * nvs_topology. Offline (a saved hwloc XML) only hwloc's part exists: NVLink shows only when the XML holds
 * hwloc's NVLinkBandwidth matrix, and P2P access is unknown. */
#include <errno.h>
#include <hwloc.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out_file.h"
#include "topo/topo_live.h"
#include "topo/topo_xml_lint.h"

#define MAX_CUDA_GPUS 256 /* per process; far above any node (HGX: 8, NVL72 tray: 4) */

/* How a message names the XML, in three %s: "hwloc XML 'PATH'", or "hwloc XML from standard input" for the one
 * piped in ("hwloc XML 'standard input'" read as a file of that name); QUOTED alone: 'PATH' or standard input.
 * NAME is nvs_input_name's: its "standard input" is one string, told from a file a user named so by address. */
static int piped(const char *name)
{
    return name == nvs_input_name("-");
}
#define XML_NAMED(n) piped(n) ? "hwloc XML from " : "hwloc XML '", (n), piped(n) ? "" : "'"
#define QUOTED(n) piped(n) ? "" : "'", (n), piped(n) ? "" : "'"

/* Catch what hwloc would only report as "load failed", or not survive, or drop silently: empty, not XML, XML v3,
 * the sets and PCI attributes topo_xml_lint.h checks. */
static nvs_result_t check_xml_text(const char *path, const char *text)
{
    if (!*text) {
        nvs_error("%s%s%s is empty", XML_NAMED(path));
        return NVS_ERR_INPUT;
    }
    const char *top = strstr(text, "<topology");
    if (!top) {
        nvs_error("%s%s%s is not an hwloc XML topology (no <topology> element; save one with `lstopo --of xml FILE`)",
                  QUOTED(path));
        return NVS_ERR_INPUT;
    }
    const char *end = strchr(top, '>');
    const char *ver = strstr(top, "version=\"");
    if (ver && (!end || ver < end)) {
        int major = atoi(ver + 9);
        unsigned api = hwloc_get_api_version();
        if (major >= 3 && (api >> 16) < 3) {
            nvs_error("%s%s%s is version %d.x (written by hwloc %d.x); the hwloc %u.x library used here cannot "
                      "read it: save it again with an hwloc 2.x lstopo (`lstopo --of xml FILE`)",
                      XML_NAMED(path), major, major, api >> 16);
            return NVS_ERR_INPUT;
        }
    }
    int line;
    if (nvs_topo_xml_lint_sets(text, &line)) {
        nvs_error("%s:%d: an object's sets are not what hwloc writes (a cpuset without complete_cpuset, a nodeset "
                  "without complete_nodeset, or a set that is not 0x-hex words): not a valid hwloc XML topology (save "
                  "it again with `lstopo --of xml FILE`)",
                  path, line);
        return NVS_ERR_INPUT;
    }
    char attr[16], value[64];
    if (nvs_topo_xml_lint_pci(text, &line, attr, sizeof attr, value, sizeof value)) {
        nvs_error(
            "%s:%d: %s \"%s\" is not what hwloc writes (%s): hwloc ignores it without a word, and the "
            "device is lost (a GPU with it); correct the value or save the file again with `lstopo --of xml FILE`",
            path, line, attr, value,
            !strcmp(attr, "pci_busid") ? "domain:bus:device.function in hex, e.g. 0000:13:00.0"
                                       : "class [vendor:device] [subvendor:subdevice] revision in hex, e.g. "
                                         "0300 [10de:2335] [10de:18be] a1");
        return NVS_ERR_INPUT;
    }
    return NVS_OK;
}

/* The whole file, when it is a regular file (a FIFO would block forever) of a size an XML of one host has: the
 * largest single-image GPU servers write a few MB; 0.7 MB already describe 4096 GPUs. */
static nvs_result_t read_xml(const char *path, char **text)
{
    *text = NULL;
    if (nvs_input_is_stdin(path)) { /* "-": the XML piped in, read whole as a file's is (core/out_file.h) */
        NVS_CHECK(nvs_read_text_file(path, NVS_TOPO_MAX_XML_BYTES, text));
        path = nvs_input_name(path);
    } else {
        if (nvs_input_file_ok(path, "hwloc XML", 1)) return NVS_ERR_INPUT;
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size > NVS_TOPO_MAX_XML_BYTES) {
            nvs_error("hwloc XML '%s' is %lld bytes: more than %d MiB is not the topology of one host", path,
                      (long long)st.st_size, NVS_TOPO_MAX_XML_BYTES >> 20);
            return NVS_ERR_INPUT;
        }
        NVS_CHECK(nvs_read_text_file(path, NVS_TOPO_MAX_XML_BYTES, text));
    }
    nvs_result_t r = check_xml_text(path, *text);
    if (r != NVS_OK) {
        free(*text);
        *text = NULL;
    }
    return r;
}

/* What a loaded XML topology still needs: at least one GPU, its source, the pair classes. */
static nvs_result_t finish_xml(const char *xml, nvs_result_t r, nvs_topology *t, const char *err, int classify,
                               nvs_topology **out)
{
    if (r != NVS_OK) {
        nvs_error("%s", err);
        return r == NVS_ERR_NOMEM ? r : NVS_ERR_INPUT;
    }
    if (t->ngpus == 0) {
        nvs_error("%s%s%s has no NVIDIA GPU (no PCI device of vendor 10de, class 03xx: was it saved with "
                  "I/O devices filtered out?)",
                  XML_NAMED(xml));
        nvs_topo_free(t);
        return NVS_ERR_INPUT;
    }
    snprintf(t->source, sizeof t->source, "hwloc-xml:%s", xml);
    snprintf(t->nvml_status, sizeof t->nvml_status, "not used (offline)");
    snprintf(t->cuda_status, sizeof t->cuda_status, "not used (offline)");
    if (classify) nvs_topo_classify_all(t);
    *out = t;
    return NVS_OK;
}

/* hwloc reads the XML in a child process: hwloc 2.9 aborts or crashes on some malformed files (lstopo too;
 * fuzz/fuzz_hwloc_xml.c found an assertion in hwloc_bitmap_sscanf and a NULL pointer in hwloc_topology_load),
 * and that must end a child, not nvscale with a core dump. The child classifies the pairs and sends the
 * topology back as run.json's "topology" (topo_json.c, the form every host's topology takes under mpirun), or
 * its error. A child that has not answered in 60 s is stopped (an XML that makes hwloc loop). */
#define XML_CHILD_S 60

static nvs_result_t load_isolated(const char *name, const char *text, nvs_topology **out, char *err, size_t errlen)
{
    int fd[2];
    *out = NULL;
    if (pipe(fd) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return NVS_ERR_SYSTEM;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return NVS_ERR_SYSTEM;
    }
    if (pid == 0) {
        close(fd[0]);
        alarm(XML_CHILD_S);
        /* test hook (tests/t/robust_inputs.sh): a reader that dies as hwloc did on a malformed file */
        if (getenv("NVS_TEST_XML_ABORT")) abort();
        nvs_topology *t = NULL;
        char e[512] = "";
        nvs_result_t r = nvs_topo_hwloc_load_buffer(name, text, strlen(text) + 1, &t, e, sizeof e);
        char *js = NULL;
        if (r == NVS_OK) {
            nvs_topo_classify_all(t);
            json_t *j = nvs_topo_to_json(t);
            js = j ? json_dumps(j, JSON_COMPACT) : NULL;
            json_decref(j);
            if (!js) r = NVS_ERR_NOMEM, snprintf(e, sizeof e, "out of memory");
        }
        FILE *w = fdopen(fd[1], "w");
        int bad = !w || fprintf(w, "%d\n%s", (int)r, r == NVS_OK ? js : e) < 0 || fclose(w) != 0;
        _exit(bad ? 3 : 0);
    }
    close(fd[1]);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    FILE *rd = fdopen(fd[0], "r");
    char chunk[65536];
    size_t k;
    while (m && rd && (k = fread(chunk, 1, sizeof chunk, rd)) > 0) fwrite(chunk, 1, k, m);
    if (rd) fclose(rd);
    else close(fd[0]);
    if (m) fclose(m);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    nvs_result_t res = NVS_OK;
    int code = -1, off = 0;
    if (WIFSIGNALED(st)) {
        snprintf(err, errlen, "hwloc could not read %s%s%s: it stopped with signal %d (%s)%s: not a valid "
                 "hwloc XML topology", XML_NAMED(name), WTERMSIG(st), strsignal(WTERMSIG(st)),
                 WTERMSIG(st) == SIGALRM ? ", after " "60 s" : "");
        res = NVS_ERR_INPUT;
    } else if (!buf || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(buf, "%d\n%n", &code, &off) != 1) {
        snprintf(err, errlen, "%s%s%s: the reader process failed (exit %d)", XML_NAMED(name),
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        res = NVS_ERR_SYSTEM;
    } else if (code != NVS_OK) {
        snprintf(err, errlen, "%s", buf + off);
        res = code > 0 && code < NVS_RESULT_COUNT ? (nvs_result_t)code : NVS_ERR_INPUT;
    } else {
        json_error_t je;
        json_t *j = json_loads(buf + off, 0, &je);
        res = j ? nvs_topo_from_json(j, out, err, errlen) : NVS_ERR_SYSTEM;
        if (!j)
            snprintf(err, errlen, "%s%s%s: unreadable answer of the reader process (%s)", XML_NAMED(name), je.text);
        json_decref(j);
    }
    free(buf);
    return res;
}

/* The text, checked, through hwloc: in a child process for a file (load_isolated), in this one for the fuzz
 * harness (which needs to see the code that walks hwloc's objects run, and whose crashes are findings) */
static nvs_result_t discover_text(const char *name, const char *text, int isolated, nvs_topology **out)
{
    NVS_CHECK(check_xml_text(name, text));
    nvs_topology *t = NULL;
    char err[1024];
    nvs_result_t r = isolated ? load_isolated(name, text, &t, err, sizeof err)
                              : nvs_topo_hwloc_load_buffer(name, text, strlen(text) + 1, &t, err, sizeof err);
    return finish_xml(name, r, t, err, !isolated, out);
}

static nvs_result_t discover_xml(const char *xml, nvs_topology **out)
{
    char *text;
    NVS_CHECK(read_xml(xml, &text));
    nvs_result_t r = discover_text(nvs_input_name(xml), text, 1, out);
    free(text);
    return r;
}

nvs_result_t nvs_topo_discover_xml_buffer(const char *name, const char *buf, size_t len, nvs_topology **out)
{
    *out = NULL;
    if (len > NVS_TOPO_MAX_XML_BYTES || memchr(buf, '\0', len)) {
        nvs_error("%s: not an hwloc XML topology (NUL bytes, or more than %d MiB)", name, NVS_TOPO_MAX_XML_BYTES >> 20);
        return NVS_ERR_INPUT;
    }
    char *text = malloc(len + 1);
    if (!text) return NVS_ERR_NOMEM;
    memcpy(text, buf, len);
    text[len] = '\0';
    nvs_result_t r = discover_text(name, text, 0, out);
    free(text);
    return r;
}

/* Live: the GPU list comes from CUDA when it answers (its ordinal order), else from hwloc (bus id order). */
static nvs_result_t discover_live(nvs_topology **out)
{
    nvs_topology *hw = NULL, *t = NULL;
    char err[512] = "";
    nvs_result_t res = NVS_OK;
    if (nvs_topo_hwloc_load(NULL, &hw, err, sizeof err) != NVS_OK) {
        nvs_warn("hwloc: %s; NUMA and PCIe locality unknown", err);
        hw = NULL;
    }
    static char busids[MAX_CUDA_GPUS][NVS_TOPO_BUSID_LEN], names[MAX_CUDA_GPUS][NVS_TOPO_NAME_LEN];
    char cuda_why[256] = "";
    int ncuda = nvs_cuda_list(busids, names, MAX_CUDA_GPUS, cuda_why, sizeof cuda_why);
    nvs_nvml *nvml = NULL;
    char nvml_why[256] = "";
    nvs_result_t nr = nvs_nvml_open(&nvml, nvml_why, sizeof nvml_why);
    if (nr != NVS_OK && nr != NVS_ERR_UNSUPPORTED) {
        res = nr;
        goto out;
    }
    int ngpus = ncuda > 0 ? ncuda : hw ? hw->ngpus : 0;
    if (ngpus == 0) {
        nvs_error("no NVIDIA GPU found on this machine: CUDA: %s; NVML: %s; hwloc: %s",
                  ncuda < 0 ? cuda_why : "no device visible (CUDA_VISIBLE_DEVICES?)", nvml ? "ok" : nvml_why,
                  hw ? "no PCI device of vendor 10de, class 03xx" : err);
        res = NVS_ERR_UNSUPPORTED;
        goto out;
    }
    t = nvs_topo_alloc(1, ngpus);
    if (!t) {
        res = NVS_ERR_NOMEM;
        goto out;
    }
    if (hw) t->hosts[0] = hw->hosts[0];
    else if (gethostname(t->hosts[0].name, sizeof t->hosts[0].name - 1) != 0)
        snprintf(t->hosts[0].name, sizeof t->hosts[0].name, "unknown");
    for (int i = 0; i < ngpus; i++) {
        nvs_topo_gpu *g = &t->gpus[i];
        if (ncuda > 0) {
            int h = hw ? nvs_topo_find_gpu(hw, NULL, busids[i]) : -1;
            if (h >= 0) *g = hw->gpus[h];
            else {
                memcpy(g->pci_bus_id, busids[i], sizeof g->pci_bus_id);
                g->pci_bus_id[sizeof g->pci_bus_id - 1] = '\0';
                snprintf(g->nvlink.why_unknown, sizeof g->nvlink.why_unknown, "not found by hwloc");
            }
            memcpy(g->name, names[i], sizeof g->name);
            g->name[sizeof g->name - 1] = '\0';
            g->cuda_device = i;
        } else
            *g = hw->gpus[i];
        g->index = i;
        g->host = 0;
        /* the GPU's own width, whatever the slot (NVML has no call for it): its Link Capabilities in sysfs */
        int w = nvs_topo_pci_max_link_width(nvs_topo_sysfs_root(), g->pci_bus_id);
        g->pcie.gpu_max_width = w > 0 ? w : 0;
        if (nvml) {
            char why[256];
            if (nvs_nvml_fill_gpu(nvml, g, why, sizeof why)) {
                nvs_warn("NVML: %s", why);
                snprintf(g->nvlink.why_unknown, sizeof g->nvlink.why_unknown, "%.127s", why);
            }
        } else if (!g->nvlink.known)
            snprintf(g->nvlink.why_unknown, sizeof g->nvlink.why_unknown, "%.127s", nvml_why);
    }
    /* the host's NICs as hwloc found them (live: with sysfs's link layer, state and rate): their classes to the
     * GPUs and each GPU's NET bound are made by nvs_topo_classify_all below, from the PCIe paths. They were left
     * behind here until 3 December 2026, so a live run knew no NIC and no NET bound. */
    if (hw && hw->nnics > 0) {
        if ((res = nvs_topo_alloc_nics(t, hw->nnics)) != NVS_OK) goto out;
        memcpy(t->nics, hw->nics, (size_t)hw->nnics * sizeof *t->nics);
        for (int k = 0; k < t->nnics; k++) t->nics[k].host = 0;
    }
    /* NVLink peers: bus id -> our GPU (a peer hidden by CUDA_VISIBLE_DEVICES stays -1) */
    for (int i = 0; i < ngpus; i++)
        for (int k = 0; k < t->gpus[i].nvlink.nlinks; k++) {
            nvs_topo_link *l = &t->gpus[i].nvlink.links[k];
            if (l->remote != NVS_REMOTE_GPU && l->remote != NVS_REMOTE_UNKNOWN) continue;
            int peer = l->remote_pci_bus_id[0] ? nvs_topo_find_gpu(t, NULL, l->remote_pci_bus_id) : -1;
            if (peer >= 0) l->remote = NVS_REMOTE_GPU;
            if (l->remote == NVS_REMOTE_GPU) l->remote_gpu = peer;
        }
    for (int a = 0; a < ngpus; a++)
        for (int b = 0; b < ngpus; b++) {
            if (a == b) continue;
            nvs_topo_pair *p = nvs_topo_pair_cell(t, a, b); /* one host: never NULL */
            if (!p) continue;
            if (ncuda > 0) {
                int ab = nvs_cuda_can_access_peer(a, b), ba = nvs_cuda_can_access_peer(b, a);
                p->p2p_cuda = ab < 0 || ba < 0 ? -1 : ab && ba;
            }
            if (nvml)
                nvs_nvml_p2p_status(nvml, t->gpus[a].pci_bus_id, t->gpus[b].pci_bus_id, p->nvml_read,
                                    sizeof p->nvml_read);
        }
    snprintf(t->source, sizeof t->source, "live");
    if (nvml)
        snprintf(t->nvml_status, sizeof t->nvml_status, "ok, driver %s", nvs_nvml_driver_version(nvml));
    else
        snprintf(t->nvml_status, sizeof t->nvml_status, "%s", nvml_why);
    if (ncuda > 0)
        snprintf(t->cuda_status, sizeof t->cuda_status, "ok, %d device%s", ncuda, ncuda == 1 ? "" : "s");
    else
        snprintf(t->cuda_status, sizeof t->cuda_status, "unsupported: %.140s", ncuda < 0 ? cuda_why : "no device");
    nvs_topo_classify_all(t);
    *out = t;
    t = NULL;
out:
    nvs_nvml_close(nvml);
    nvs_topo_free(hw);
    nvs_topo_free(t);
    return res;
}

nvs_result_t nvs_topo_discover(const char *hwloc_xml, nvs_topology **out)
{
    *out = NULL;
    return hwloc_xml ? discover_xml(hwloc_xml, out) : discover_live(out);
}
