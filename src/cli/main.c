/* nvscale entry point: a git-style table of subcommands. With no subcommand (or only flags), `run`. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/launch_env.h"
#include "core/version.h"

struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct subcommand table[] = {
    {"run", cmd_run, "topology, collective sweeps at every GPU count, training step (--model), explanation"},
    {"coll", cmd_coll, "collective sweeps only, nccl-tests style"},
    {"train", cmd_train, "synthetic data-parallel training step at every GPU count: step, exposed comm, efficiency"},
    {"topo", cmd_topo,
     "GPU topology: per-GPU links, pair matrix like nvidia-smi topo -m, bounds (--hwloc-xml: offline)"},
    {"p2p", cmd_p2p, "copy bandwidth and latency between every pair of GPUs, with the bound of each pair"},
    {"compare", cmd_compare, "the same run over nvlink, pcie, shm and net transports, side by side"},
    {"accept", cmd_accept,
     "acceptance test of this machine in one launch: health, copies, collectives, training, one verdict"},
    {"check", cmd_check, "acceptance verdicts of a run.json: thresholds, baseline, PASS/FAIL (exit 3)"},
    {"report", cmd_report, "Markdown report with plots from run.json files, several runs side by side"},
    {"model", cmd_model, "what-if cost model: step time and efficiency for GPUs x machines x N, calibration"},
    {"version", cmd_version, "versions of nvscale and of the libraries it was built with"},
    {"help", cmd_help, "this list"},
};
static const int ntable = (int)(sizeof table / sizeof table[0]);

/* `nvscale help` lists the subcommands; `nvscale help SUBCOMMAND` is `nvscale SUBCOMMAND --help` (as git does);
 * an unknown name is an error (exit 2). */
static int cmd_help(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(nvs_stderr_once(), "nvscale help: unexpected argument '%s'\nTry 'nvscale help'.\n", argv[2]);
        return 2;
    }
    /* `nvscale help --help`, as the list below says of every subcommand: the list */
    int self = argc >= 2 && (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (argc >= 2 && !self) {
        for (int i = 0; i < ntable; i++)
            if (!strcmp(argv[1], table[i].name)) {
                char *args[] = {argv[1], "--help", NULL};
                return table[i].fn(2, args);
            }
        fprintf(nvs_stderr_cmdline(), "nvscale help: unknown subcommand '%s'\nTry 'nvscale help'.\n", argv[1]);
        return 2;
    }
    printf("nvscale %s: how well do your GPUs talk to each other, and what does it do to training?\n\n"
           "usage: nvscale [SUBCOMMAND] [OPTIONS]      (mpirun -np N nvscale ...: one rank per GPU)\n\n",
           NVS_VERSION);
    for (int i = 0; i < ntable; i++) printf("  %-9s %s\n", table[i].name, table[i].summary);
    printf("\n'nvscale SUBCOMMAND --help' lists a subcommand's options. Without a subcommand: run.\n");
    return 0;
}

static int cmd_version(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) { /* and `nvscale help version` */
        printf("usage: nvscale version\nPrints the versions of nvscale and of the libraries it was built with.\n");
        return 0;
    }
    if (argc > 1) { /* nothing to choose: a word after it is a mistake, not a request */
        fprintf(nvs_stderr_once(), "nvscale version: unexpected argument '%s'\nTry 'nvscale help'.\n", argv[1]);
        return 2;
    }
    nvs_print_versions(stdout);
    return 0;
}

/* What a subcommand printed may still sit in stdio's buffer, written only at exit, where a failure (a full disk)
 * goes unsaid: `nvscale accept --print-rules > my.rules` exited 0 with my.rules cut or empty. A subcommand that
 * failed has said why already (one that checks its own output names the write it lost). */
static int stdout_flushed(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    if (rc) return rc;
    fprintf(stderr, "nvscale: error: cannot write to the standard output%s%s\n", errno ? ": " : "",
            errno ? strerror(errno) : "");
    return 1;
}

/* The subcommand dispatch runs for argv, by its name; NULL for --help, --version or a name not in the table. */
static const char *subcommand_of(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--version")))
        return NULL;
    if (argc < 2 || argv[1][0] == '-') return "run";
    for (int i = 0; i < ntable; i++)
        if (!strcmp(argv[1], table[i].name)) return table[i].name;
    return NULL;
}

static int dispatch(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return cmd_help(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "--version")) return cmd_version(argc - 1, argv + 1);
    if (argc < 2 || argv[1][0] == '-') {
        /* `nvscale -b 1M ...` = `nvscale run -b 1M ...`: argv[0] stands in for the subcommand name */
        argv[0] = "run";
        return cmd_run(argc, argv);
    }
    for (int i = 0; i < ntable; i++)
        if (!strcmp(argv[1], table[i].name)) return table[i].fn(argc - 1, argv + 1);
    fprintf(nvs_stderr_once(), "nvscale: unknown subcommand '%s'\nTry 'nvscale help'.\n", argv[1]);
    return 2;
}

/* A refusal before the runtime exists (a usage error, exit 2; or "--backend nccl needs a GPU", which one host
 * alone may see) is said once, by the launcher's rank 0 (nvs_stderr_once); every other rank holds its message back.
 * mpirun aborts the job at the first rank that exits non-zero, so a silent rank that got there first killed rank 0
 * before it had written why (1 launch in 8 of `mpirun -np 3 nvscale accept --rules MISSING` on 2 busy cores): the
 * other ranks wait 2 s, time for rank 0 to say it and exit, which ends the job. A rank still there after that saw
 * what rank 0 did not (a command line of its own, a variable or a file on its host alone: rank 0 went on, into
 * MPI's start-up) and says it itself, tagged with its rank, before it exits 2; before, it exited without a word
 * and mpirun said only that rank 1 returned 2. Under srun, which does not end the job, it keeps quiet
 * (nvs_stderr_once_late). */
#define NVS_SILENT_RANK_EXIT_DELAY_S 2
static unsigned silent_rank_delay_s = NVS_SILENT_RANK_EXIT_DELAY_S;

/* Test hook NVS_TEST_SILENT_RANK_DELAY_S=S: the other ranks wait S seconds instead of 2. A test that asserts "said
 * once" under mpirun failed whenever rank 0, starved of its core on a busy machine, took more than 2 s to start and
 * refuse (tests/t/topo_errors.sh); it sets a long delay, which costs it nothing: mpirun ends the waiting ranks as soon
 * as rank 0 exits. Validated on every rank before anything else: a bad value is refused, exit 2. */
static int silent_rank_delay_env(const char *sub)
{
    const char *v = getenv("NVS_TEST_SILENT_RANK_DELAY_S");
    if (!v || !*v) return 0;
    size_t len = strlen(v);
    if (len > 3 || strspn(v, "0123456789") != len || atoi(v) < 1 || atoi(v) > 600) {
        /* the subcommand's refusal, "nvscale SUB: ...", as its flags' are; "nvscale: ..." where there is none */
        fprintf(nvs_stderr_cmdline(), "nvscale%s%s: invalid value '%s' for environment variable "
                                      "NVS_TEST_SILENT_RANK_DELAY_S: expected seconds, 1 to 600\n",
                sub ? " " : "", sub ? sub : "", v);
        return -1;
    }
    silent_rank_delay_s = (unsigned)atoi(v);
    return 0;
}

static int said_once(int rc)
{
    if (nvs_launcher_rank() > 0 && (rc == 2 || (rc != 0 && nvs_stderr_once_held()))) {
        sleep(silent_rank_delay_s);
        nvs_stderr_once_late(stderr);
    }
    return rc;
}

/* A standard descriptor closed at launch (`nvscale ... >&-`) would be the next file opened: MPI's start-up pipe,
 * a run.json temporary, and what nvscale prints would go into it (Open MPI's singleton start-up took fd 1, seen
 * under `nvscale coll >&-`). Each closed one is held on /dev/null, opened the wrong way round (stdin for writing,
 * stdout and stderr for reading), so that using it still fails with EBADF as a closed one does: a write to
 * stdout is still reported. */
static void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
            if (got < 0) return;             /* nothing better to do: it stays closed */
            if (got != fd) (void)close(got); /* cannot happen: the lowest free descriptor is fd */
        }
}

int main(int argc, char **argv)
{
    hold_closed_std_fds();
    if (silent_rank_delay_env(subcommand_of(argc, argv))) return said_once(2);
    return said_once(stdout_flushed(dispatch(argc, argv)));
}
