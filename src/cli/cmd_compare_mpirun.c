/* nvscale compare under an MPI launcher: refused, with the mpirun commands that do the same, one per transport,
 * and the compare --report-only that puts them side by side (cmd_compare_priv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_compare_priv.h"
#include "compare/compare.h"
#include "core/escape.h"
#include "runtime/runtime.h"

static const char *env_first(const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (getenv(names[i]) && *getenv(names[i])) return getenv(names[i]);
    return NULL;
}

/* DIR/NAME as one shell word */
static void put_dir_word(const char *dir, const char *name, FILE *f)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *w = malloc(n);
    if (!w) { /* two words' quoting side by side is still one shell word: 'my dir'/shm */
        nvs_sh_fputs(dir, f);
        fputc('/', f);
        nvs_sh_fputs(name, f);
        return;
    }
    snprintf(w, n, "%s/%s", dir, name);
    nvs_sh_fputs(w, f);
    free(w);
}

/* The commands are for copying into a shell: every word quoted as the shell needs it (an option value with a space,
 * a quote or a $ would otherwise split or expand; nvs_sh_fputs), and never cut (the options were collected into a
 * 2048-byte buffer, which dropped what did not fit without a word) */
void nvs_cc_print_mpirun_sequence(const nvs_tp_kind *kinds, int nk, int pc, char **pass, const char *dir)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
    if (nvs_rt_launcher_rank() != 0) return; /* one copy of the message, from rank 0 */
    const char *np = env_first(size_vars);
    fprintf(stderr,
            "nvscale compare: running under an MPI launcher (mpirun -np N nvscale compare): one MPI job cannot start\n"
            "another MPI job per transport. Run each transport as its own mpirun, then compare the runs:\n\n");
    for (int i = 0; i < nk; i++) {
        const nvs_tp_desc *d = nvs_tp(kinds[i]);
        fprintf(stderr, "  mpirun -np ");
        nvs_sh_fputs(np ? np : "N", stderr);
        for (int e = 0; d->env[e]; e++) fprintf(stderr, " -x %s", d->env[e]);
        fprintf(stderr, " nvscale run");
        for (int a = 0; a < pc; a++) {
            fputc(' ', stderr);
            nvs_sh_fputs(pass[a], stderr);
        }
        fprintf(stderr, " --out ");
        put_dir_word(dir, d->name, stderr);
        fprintf(stderr, "%s\n", kinds[i] == NVS_TP_PCIE ? "     # only on GPUs without NVLink between them" : "");
    }
    fprintf(stderr, "  nvscale compare --report-only --transports ");
    for (int i = 0; i < nk; i++) fprintf(stderr, "%s%s", i ? "," : "", nvs_tp(kinds[i])->name);
    fprintf(stderr, " --out ");
    nvs_sh_fputs(dir, stderr);
    fprintf(stderr, "\n  (or: nvscale report ");
    nvs_sh_fputs(dir, stderr); /* the glob after it stays unquoted, outside the quotes */
    fprintf(stderr, "/*/run.json)\n\n");
    fprintf(stderr, "-x VAR=VALUE is Open MPI's; with MPICH/Hydra use -genv VAR VALUE. Make sure NCCL_P2P_DISABLE and\n"
                    "NCCL_SHM_DISABLE are not set in the environment of the nvlink and pcie runs.\n");
}
