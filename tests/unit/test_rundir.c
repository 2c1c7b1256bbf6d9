/* Run directories (runjson/runjson_write.h, issue 14): unique names for runs started in the same second,
 * DIR.partial renamed never over another directory, --out refused when it would mix results;
 * and core/out_file.h: an output through a FIFO or a link is written through, the link and the FIFO stay; the
 * nearest existing ancestor of an output path (where --out and report -o make their directories). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/out_file.h"
#include "runjson/runjson_write.h"
#include "t.h"

static char here[4096], tmp[4200];

static void enter_tmp(void)
{
    if (!getcwd(here, sizeof here)) T_FAIL("getcwd");
    snprintf(tmp, sizeof tmp, "%s/tests/tmp/test_rundir.%ld", here, (long)getpid());
    if (nvs_mkdir_p(tmp) != NVS_OK || chdir(tmp) != 0) T_FAIL("cannot enter %s", tmp);
}

static void leave_tmp(void)
{
    char cmd[4400];
    if (chdir(here) != 0) T_FAIL("chdir back");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) T_FAIL("cannot remove %s", tmp);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void t_unique_names(void)
{
    enter_tmp();
    char fa[4096], pa[4200], fb[4096], pb[4200], fc[4096], pc[4200];
    T_EQ_I(nvs_rj_open_run_dir(NULL, "topo", fa, sizeof fa, pa, sizeof pa), NVS_OK);
    T_EQ_I(nvs_rj_open_run_dir(NULL, "topo", fb, sizeof fb, pb, sizeof pb), NVS_OK);
    if (!strcmp(fa, fb)) T_FAIL("two runs in one second got one name: %s", fa);
    T_ASSERT(is_dir(pa) && is_dir(pb) && strstr(pa, ".partial"));
    T_EQ_I(nvs_rj_rename_run_dir(pa, fa), 0);
    T_ASSERT(is_dir(fa) && !is_dir(pa));
    /* a finished name is not handed out again */
    T_EQ_I(nvs_rj_open_run_dir(NULL, "topo", fc, sizeof fc, pc, sizeof pc), NVS_OK);
    if (!strcmp(fc, fa) || !strcmp(fc, fb)) T_FAIL("%s handed out again", fc);
    /* the rename never replaces a directory that appeared meanwhile (rename(2) replaces an empty one) */
    T_EQ_I(mkdir(fc, 0777), 0);
    T_EQ_I(nvs_rj_rename_run_dir(pc, fc), -1);
    T_EQ_I(errno, EEXIST);
    T_ASSERT(is_dir(pc));
    leave_tmp();
}

static void t_out_rules(void)
{
    enter_tmp();
    char f[4096], p[4200];
    T_EQ_I(nvs_rj_check_out_dir("run", "x/y/out"), NVS_OK); /* parents made when the run opens it */
    T_EQ_I(nvs_rj_open_run_dir("x/y/out", "coll", f, sizeof f, p, sizeof p), NVS_OK);
    T_EQ_S(f, "x/y/out");
    T_EQ_S(p, "x/y/out.partial");
    T_EQ_I(nvs_rj_open_run_dir("x/y/out", "coll", f, sizeof f, p, sizeof p), NVS_ERR_USAGE); /* .partial exists */
    FILE *fp = fopen("file", "w");
    T_ASSERT(fp);
    fclose(fp);
    T_EQ_I(nvs_rj_check_out_dir("run", "file"), NVS_ERR_USAGE);
    T_EQ_I(nvs_rj_check_out_dir("run", "file/sub"), NVS_ERR_USAGE); /* its ancestor is not a directory */
    T_EQ_I(nvs_rj_check_out_dir("run", "x"), NVS_ERR_USAGE);        /* exists: never mixed with a new run */
    leave_tmp();
}

/* "-" is refused by the check itself, not only by the flag parsers that call nvs_out_dash_why first: a caller that
 * forgets it would make a directory named '-' where standard output was meant; ./- still names one */
static void t_out_dash(void)
{
    enter_tmp();
    FILE *tmp = tmpfile();
    int saved = dup(2);
    T_ASSERT(tmp && saved >= 0);
    fflush(stderr);
    dup2(fileno(tmp), 2);
    nvs_result_t dash = nvs_rj_check_out_dir("topo", "-"), dot = nvs_rj_check_out_dir("topo", "./-");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *err = t_slurp(tmp);
    fclose(tmp);
    int said = strstr(err, "nvscale topo: --out -: '-' is not standard output here") != NULL;
    if (!said) printf("#   stderr: %s\n", err);
    free(err);
    T_EQ_I(dash, NVS_ERR_USAGE);
    T_ASSERT(said);
    T_EQ_I(dot, NVS_OK);
    leave_tmp();
}

/* nvs_nearest_existing: from the path itself (report -o) or from its parent (--out), up to what exists; "." and
 * "/" end the walk; a file on the way is the answer (the callers refuse it as not a directory) */
static void t_nearest_existing(void)
{
    enter_tmp();
    char a[4096];
    T_EQ_I(nvs_mkdir_p("x/y"), NVS_OK);
    FILE *fp = fopen("x/file", "w");
    T_ASSERT(fp);
    fclose(fp);
    T_EQ_I(nvs_nearest_existing("x/y", 0, a, sizeof a), 0);
    T_EQ_S(a, "x/y"); /* it exists: the path itself */
    T_EQ_I(nvs_nearest_existing("x/y", 1, a, sizeof a), 0);
    T_EQ_S(a, "x"); /* from the parent, even though x/y exists */
    T_EQ_I(nvs_nearest_existing("x/y/new/deeper", 0, a, sizeof a), 0);
    T_EQ_S(a, "x/y");
    T_EQ_I(nvs_nearest_existing("x/y/new/deeper", 1, a, sizeof a), 0);
    T_EQ_S(a, "x/y");
    T_EQ_I(nvs_nearest_existing("x/file/sub", 0, a, sizeof a), 0);
    T_EQ_S(a, "x/file");
    T_EQ_I(nvs_nearest_existing("none/at/all", 0, a, sizeof a), 0);
    T_EQ_S(a, ".");
    T_EQ_I(nvs_nearest_existing("none", 1, a, sizeof a), 0);
    T_EQ_S(a, ".");
    T_EQ_I(nvs_nearest_existing("/nvscale-no-such-dir/sub", 0, a, sizeof a), 0);
    T_EQ_S(a, "/");
    char abs_path[4300], want[4300];
    snprintf(abs_path, sizeof abs_path, "%s/x/y/z", tmp);
    snprintf(want, sizeof want, "%s/x/y", tmp);
    T_EQ_I(nvs_nearest_existing(abs_path, 0, a, sizeof a), 0);
    T_EQ_S(a, want);
    char small[8];
    T_EQ_I(nvs_nearest_existing("x/y/longer", 0, small, sizeof small), -1); /* does not fit: never cut short */
    /* nvs_names_fit: the names to be made, below the nearest existing ancestor, against NAME_MAX */
    char lng[300 + 16];
    snprintf(lng, sizeof lng, "x/y/new/%0300d", 0);
    T_EQ_I(nvs_names_fit("x/y/new/deeper", "x/y"), 1);
    T_EQ_I(nvs_names_fit(lng, "x/y"), 0);
    lng[7 + 255 + 1] = '\0'; /* a name of 255 bytes: fits */
    T_EQ_I(nvs_names_fit(lng, "x/y"), 1);
    T_EQ_I(nvs_names_fit(lng + 4, "."), 1);
    leave_tmp();
}

/* nvs_mkdir_made / nvs_unmake_dirs: what mkdir -p made goes, as mkdir answered, never a directory that was there
 * (also where the path's text says otherwise: "x/../kept"), nor one another command wrote into (with all above it) */
static void t_mkdir_made(void)
{
    enter_tmp();
    struct stat st;
    static nvs_made_dirs m;
    T_EQ_I(nvs_mkdir_p("keep"), NVS_OK);
    T_EQ_I(nvs_mkdir_made("keep/a/b/c", &m), NVS_OK);
    T_EQ_I(m.last, 1);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep/a", &st), -1);
    T_EQ_I(stat("keep", &st), 0);
    /* another command wrote into a/ meanwhile: a/ and keep/ stay, b/ and c/ go */
    T_EQ_I(nvs_mkdir_made("keep/a/b/c/", &m), NVS_OK); /* a trailing slash: c is still the last, made */
    T_EQ_I(m.last, 1);
    FILE *fp = fopen("keep/a/other", "w");
    T_ASSERT(fp);
    fclose(fp);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep/a/b", &st), -1);
    T_EQ_I(stat("keep/a/other", &st), 0);
    /* ".." after a missing directory: only x was made; kept (there, with a file) is not last and stays */
    T_EQ_I(nvs_mkdir_p("kept"), NVS_OK);
    fp = fopen("kept/mine", "w");
    T_ASSERT(fp);
    fclose(fp);
    T_EQ_I(nvs_mkdir_made("x/../kept", &m), NVS_OK);
    T_EQ_I(m.last, 0);
    T_EQ_I(m.any, 1);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("x", &st), -1);
    T_EQ_I(stat("kept/mine", &st), 0);
    /* new/. and new/sub/.. name new, which was made: last, named by its own name (a report that failed left it
     * with what was written into it) */
    T_EQ_I(nvs_mkdir_made("keep/new/.", &m), NVS_OK);
    T_EQ_I(m.last, 1);
    T_EQ_I((int)m.named, 8);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep/new", &st), -1);
    T_EQ_I(nvs_mkdir_made("keep/new/sub/..", &m), NVS_OK);
    T_EQ_I(m.last, 1);
    T_EQ_I((int)m.named, 8);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep/new", &st), -1);
    /* nothing made: nothing to undo */
    T_EQ_I(nvs_mkdir_made("keep", &m), NVS_OK);
    T_EQ_I(m.any + m.last, 0);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep", &st), 0);
    /* a file in the way: refused, and what was made before it recorded for the undo */
    fp = fopen("keep/file", "w");
    T_ASSERT(fp);
    fclose(fp);
    T_EQ_I(nvs_mkdir_made("keep/y/../file/z", &m) == NVS_OK, 0);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep/y", &st), -1);
    T_EQ_I(stat("keep/file", &st), 0);
    /* the path itself cannot be made (a name longer than NAME_MAX) under a directory that was just made: not
     * `last` (it said n/'s, so report -o's undo tried to remove the path whole, failed, and kept n/) */
    char longname[300 + 16];
    memset(longname, 'x', sizeof longname);
    memcpy(longname, "keep/n/", 7);
    longname[sizeof longname - 1] = '\0';
    T_EQ_I(nvs_mkdir_made(longname, &m), NVS_ERR_USAGE);
    T_EQ_I(m.last, 0);
    T_EQ_I(m.any, 1);
    nvs_unmake_dirs(&m);
    T_EQ_I(stat("keep/n", &st), -1);
    T_EQ_I(stat("keep", &st), 0);
    leave_tmp();
}

static void t_write_through(void)
{
    enter_tmp();
    /* a symlink to a file: the file replaced, the link kept */
    T_EQ_I(nvs_write_text_file("real", "old\n"), NVS_OK);
    T_EQ_I(symlink("real", "link"), 0);
    T_EQ_I(nvs_write_text_file("link", "new\n"), NVS_OK);
    struct stat st;
    T_ASSERT(lstat("link", &st) == 0 && S_ISLNK(st.st_mode));
    char *text = NULL;
    T_EQ_I(nvs_read_text_file("real", 100, &text), NVS_OK);
    T_EQ_S(text, "new\n");
    free(text);
    /* a FIFO with a reader: written through, still a FIFO */
    T_EQ_I(mkfifo("fifo", 0666), 0);
    int rd = open("fifo", O_RDONLY | O_NONBLOCK);
    T_ASSERT(rd >= 0);
    T_EQ_I(nvs_write_text_file("fifo", "through\n"), NVS_OK);
    char buf[64] = "";
    ssize_t n = read(rd, buf, sizeof buf - 1);
    close(rd);
    T_EQ_I(n, 8);
    T_ASSERT(lstat("fifo", &st) == 0 && S_ISFIFO(st.st_mode));
    /* a FIFO is not an input */
    T_EQ_I(nvs_read_text_file("fifo", 100, &text), NVS_ERR_INPUT);
    /* refused paths are usage errors, the rest write errors */
    T_EQ_I(nvs_write_text_file(".", "x"), NVS_ERR_USAGE);
    T_EQ_I(nvs_write_text_file("nowhere/x", "x"), NVS_ERR_USAGE);
    T_EQ_I(symlink("nowhere/y", "dangling"), 0);
    T_EQ_I(nvs_write_text_file("dangling", "x"), NVS_ERR_USAGE);
    T_ASSERT(lstat("dangling", &st) == 0 && S_ISLNK(st.st_mode));
    if (access("/dev/full", W_OK) == 0) {
        T_EQ_I(symlink("/dev/full", "full"), 0);
        T_EQ_I(nvs_write_text_file("full", "no space\n"), NVS_ERR_SYSTEM); /* ENOSPC on the write: exit 1 */
    }
    leave_tmp();
}

/* A symbolic link to nothing where an output goes (it, or an ancestor to be made): said as such, naming its target,
 * and refused; report -o said "a file of that name exists", run --out "it exists" (or, under it, let the run start
 * and mkdir refuse it later) */
static void t_link_to_nothing(void)
{
    enter_tmp();
    char why[4400];
    T_EQ_I(symlink("/nonexistent/x", "dl"), 0);
    T_EQ_I(symlink("dl", "chain"), 0);
    T_EQ_I(symlink("loop", "loop"), 0);
    T_EQ_I(nvs_mkdir_p("real"), NVS_OK);
    T_EQ_I(symlink("real", "good"), 0);
    T_EQ_I(nvs_link_to_nothing("dl", why, sizeof why), 1);
    T_CONTAINS(why, "a symbolic link to '/nonexistent/x', which does not exist");
    T_EQ_I(nvs_link_to_nothing("dl/", why, sizeof why), 1); /* lstat("dl/") follows the link: cut first */
    T_CONTAINS(why, "a symbolic link to '/nonexistent/x', which does not exist");
    T_EQ_I(nvs_link_to_nothing("dl/a/b", why, sizeof why), 1);
    T_CONTAINS(why, "'dl' is a symbolic link to '/nonexistent/x', which does not exist");
    T_EQ_I(nvs_link_to_nothing("chain", why, sizeof why), 1); /* dl exists (a link): the name that does not is said */
    T_CONTAINS(why, "a symbolic link to 'dl' -> '/nonexistent/x', which does not exist");
    T_EQ_I(nvs_link_to_nothing("loop", why, sizeof why), 1);
    T_CONTAINS(why, "a loop of links");
    T_EQ_I(nvs_link_to_nothing("good/new", why, sizeof why), 0); /* a link to a directory is written through */
    T_EQ_I(nvs_link_to_nothing("none/new", why, sizeof why), 0); /* missing, no link: made by mkdir -p */
    T_EQ_I(nvs_link_to_nothing("real", why, sizeof why), 0);
    /* refused before the run (it passed the check and the run's mkdir refused it once launched) */
    T_EQ_I(nvs_rj_check_out_dir("run", "dl/sub"), NVS_ERR_USAGE);
    T_EQ_I(nvs_rj_check_out_dir("run", "dl"), NVS_ERR_USAGE);
    /* the maker and the writer refuse it as a usage error and leave the link as it was */
    T_EQ_I(nvs_mkdir_p("dl/sub"), NVS_ERR_USAGE);
    T_EQ_I(nvs_write_text_file("dl/x", "x"), NVS_ERR_USAGE);
    T_EQ_I(nvs_write_text_file("dl", "x"), NVS_ERR_USAGE);
    struct stat st;
    T_ASSERT(lstat("dl", &st) == 0 && S_ISLNK(st.st_mode));
    T_ASSERT(lstat("/nonexistent", &st) != 0);
    leave_tmp();
}

T_LIST = {T_CASE(t_unique_names), T_CASE(t_out_rules), T_CASE(t_out_dash), T_CASE(t_nearest_existing), T_CASE(t_mkdir_made),
          T_CASE(t_write_through), T_CASE(t_link_to_nothing)};
T_MAIN
