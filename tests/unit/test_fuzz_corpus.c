/* Every fuzz harness of fuzz/ (NVS_FUZZ_REPLAY: plain functions instead of libFuzzer's entry point) on every
 * file of fuzz/corpus/<name>/ (each crash, leak or hang a fuzzer found, and hand-made seeds) and of the harness's
 * seed directories (fuzz/seeds.txt). A file that crashes fails this test; under make check SAN=address,undefined
 * so does one that reads out of bounds, overflows or leaks. One TAP line per harness, naming the files. */
#define NVS_FUZZ_REPLAY 1
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz/fuzz_cli.c"
#include "fuzz/fuzz_hwloc_xml.c"
#include "fuzz/fuzz_nccl_log.c"
#include "fuzz/fuzz_preset.c"
#include "fuzz/fuzz_profile.c"
#include "fuzz/fuzz_rules.c"
#include "fuzz/fuzz_runjson.c"
#include "fuzz/fuzz_topo_json.c"
#include "t.h"

typedef int (*harness_fn)(const uint8_t *, size_t);

/* runs fn on every regular file of dir (not recursive); returns how many */
static int replay_dir(const char *dir, harness_fn fn)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > (4 << 20)) continue;
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t *buf = malloc((size_t)st.st_size + 1);
        size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
        fclose(f);
        if (buf) fn(buf, got);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static void replay(const char *name, harness_fn fn)
{
    char dir[256];
    snprintf(dir, sizeof dir, "fuzz/corpus/%s", name);
    int n = replay_dir(dir, fn);
    FILE *f = fopen("fuzz/seeds.txt", "r");
    if (!f) T_FAIL("cannot read fuzz/seeds.txt (run from the repository root)");
    char line[1024];
    size_t nl = strlen(name);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, name, nl) || line[nl] != ' ') continue;
        for (char *save = NULL, *tok = strtok_r(line + nl, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
            n += replay_dir(tok, fn);
    }
    fclose(f);
    printf("# %s: %d inputs replayed\n", name, n);
    if (!n) T_FAIL("no input for harness %s", name);
}

static void t_cli(void) { replay("cli", nvs_fuzz_cli); }
static void t_hwloc_xml(void)
{
    nvs_fuzz_hold_hwloc_plugins();
    replay("hwloc_xml", nvs_fuzz_hwloc_xml);
}
static void t_nccl_log(void) { replay("nccl_log", nvs_fuzz_nccl_log); }
static void t_preset(void) { replay("preset", nvs_fuzz_preset); }
static void t_profile(void) { replay("profile", nvs_fuzz_profile); }
static void t_rules(void) { replay("rules", nvs_fuzz_rules); }
static void t_runjson(void) { replay("runjson", nvs_fuzz_runjson); }
static void t_topo_json(void) { replay("topo_json", nvs_fuzz_topo_json); }

T_LIST = {T_CASE(t_cli),     T_CASE(t_hwloc_xml), T_CASE(t_nccl_log), T_CASE(t_preset),
          T_CASE(t_profile), T_CASE(t_rules),     T_CASE(t_runjson),  T_CASE(t_topo_json)};
T_MAIN
