/* See out_file.h. */
#include "core/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/units.h"

/* Errors that say the path cannot be written as asked (the user's to fix: exit 2), not that writing failed. */
static int path_errno(int e)
{
    return e == EACCES || e == EPERM || e == EROFS || e == ENOENT || e == ENOTDIR || e == EISDIR ||
           e == ENAMETOOLONG || e == ELOOP || e == EEXIST;
}

/* Names that stand for a stream nvscale already has (its standard output, an inherited descriptor): written
 * through even when they resolve to a regular file, so that `-o /dev/stdout >> log` appends to log */
static int is_stream_alias(const char *path)
{
    return !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

static nvs_result_t open_through(nvs_outfile *o)
{
    /* appending: a FIFO and a terminal do not care, a file behind /dev/stdout keeps what is already in it */
    int fd = open(o->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || !(o->f = fdopen(fd, "a"))) {
        int e = errno;
        if (fd >= 0) close(fd);
        nvs_error("cannot write %s: %s", o->path, strerror(e));
        return path_errno(e) ? NVS_ERR_USAGE : NVS_ERR_SYSTEM;
    }
    o->through = 1;
    return NVS_OK;
}

nvs_result_t nvs_outfile_open(nvs_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path || strlen(path) >= sizeof o->path) {
        nvs_error("output path %s", path && *path ? "too long" : "empty");
        return NVS_ERR_USAGE;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->dest, sizeof o->dest, "%s", path);
    struct stat lst, st;
    char why[4200];
    if (lstat(path, &lst) == 0) {
        if (stat(path, &st) != 0) {
            if (!nvs_link_to_nothing(path, why, sizeof why)) snprintf(why, sizeof why, "%s", strerror(errno));
            nvs_error("cannot write %s: %s", path, why);
            return NVS_ERR_USAGE;
        }
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || (S_ISREG(st.st_mode) && is_stream_alias(path)))
            return open_through(o);
        if (!S_ISREG(st.st_mode)) {
            nvs_error("cannot write %s: it is %s", path, kind_of(st.st_mode));
            return NVS_ERR_USAGE;
        }
        if (S_ISLNK(lst.st_mode)) { /* replace the file the link points to; the link stays */
            char real[PATH_MAX];
            if (!realpath(path, real) || strlen(real) >= sizeof o->dest) {
                nvs_error("cannot write %s: cannot resolve the link: %s", path, strerror(errno));
                return NVS_ERR_USAGE;
            }
            snprintf(o->dest, sizeof o->dest, "%s", real);
        }
        o->keep_mode = 1;
        o->mode = st.st_mode & 07777;
    } else if (errno != ENOENT) {
        nvs_error("cannot write %s: %s", path, strerror(errno));
        return path_errno(errno) ? NVS_ERR_USAGE : NVS_ERR_SYSTEM;
    }
    /* the temporary file: beside the destination, created exclusively (never an existing file or link) */
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->dest, (long)getpid()) >= (int)sizeof o->tmp) {
        nvs_error("output path too long: %s", path);
        return NVS_ERR_USAGE;
    }
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && errno == EEXIST) { /* a leftover of a killed run with our pid: ours to replace */
        unlink(o->tmp);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        o->tmp[0] = '\0';
        /* its directory a link to nothing: "No such file or directory" named no missing thing */
        if (e != ENOENT || !nvs_link_to_nothing(o->dest, why, sizeof why)) snprintf(why, sizeof why, "%s", strerror(e));
        nvs_error("cannot write %s: %s", path, why);
        return path_errno(e) ? NVS_ERR_USAGE : NVS_ERR_SYSTEM;
    }
    if (o->keep_mode && fchmod(fd, (mode_t)o->mode) != 0)
        nvs_debug("cannot keep the mode of %s: %s", path, strerror(errno));
    return NVS_OK;
}

int nvs_outfile_fail_env(long *k)
{
    const char *v = getenv("NVS_TEST_WRITE_FAIL");
    *k = 0;
    if (!v || !*v) return 0;
    /* nvs_parse_long: digits only (strtol alone took " 1" and "+1" for 1, values the command line refuses) */
    long n;
    if (nvs_parse_long(v, &n) || n < 1 || n > NVS_OUTFILE_FAIL_MAX) return -1;
    *k = n;
    return 0;
}

/* For the fault tests where no small file system can be mounted: NVS_TEST_WRITE_FAIL (nvs_outfile_fail_env). A bad
 * value leaves the hook off here; the subcommands refuse it before anything is written. */
static int simulated_full_disk(void)
{
    static long count, from = -1;
    if (from < 0 && nvs_outfile_fail_env(&from)) from = 0;
    return from > 0 && ++count >= from;
}

nvs_result_t nvs_outfile_commit(nvs_outfile *o)
{
    if (!o->f) return NVS_ERR_SYSTEM;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int err = errno;
    if (!bad && !o->through && simulated_full_disk()) bad = 1, err = ENOSPC;
    /* fsync: the data is on disk before the rename makes it visible (a crash leaves the old file or the new
     * one, never an empty one); a pipe or device has nothing to sync (EINVAL) */
    if (!bad && !o->through && fsync(fileno(o->f)) != 0 && errno != EINVAL) bad = 1, err = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    o->f = NULL;
    if (!bad && !o->through && rename(o->tmp, o->dest) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        nvs_error("cannot write %s: %s", o->path, strerror(err));
        if (!o->through) unlink(o->tmp);
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}

void nvs_outfile_discard(nvs_outfile *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (!o->through && o->tmp[0]) unlink(o->tmp);
}

int nvs_nearest_existing(const char *path, int from_parent, char *anc, size_t len)
{
    if (len < 2 || snprintf(anc, len, "%s", path) >= (int)len) return -1;
    struct stat st;
    if (!from_parent && stat(anc, &st) == 0) return 0;
    for (;;) {
        char *slash = strrchr(anc, '/');
        if (!slash)
            snprintf(anc, len, ".");
        else if (slash == anc)
            anc[1] = '\0';
        else
            *slash = '\0';
        /* as far up as a path goes, whether it exists or not: the caller's stat of the answer tells */
        if (!strcmp(anc, ".") || !strcmp(anc, "/")) return 0;
        if (stat(anc, &st) == 0) return 0;
    }
}

/* The target of the link AT (relative to AT's directory, as the kernel reads it) into TO: its text, and in FULL a
 * path to it from here. -1 when AT is no link. */
static int link_hop(const char *at, char *to, char *full, size_t len)
{
    ssize_t n = readlink(at, to, len - 1);
    if (n < 0) return -1;
    to[n] = '\0';
    const char *slash = strrchr(at, '/');
    if (to[0] == '/' || !slash) snprintf(full, len, "%s", to);
    else snprintf(full, len, "%.*s/%s", (int)(slash - at), at, to);
    return 0;
}

/* S appended to BUF (LEN bytes), cut to fit */
static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf), n = strlen(s);
    if (used + 1 >= len) return;
    if (n > len - used - 1) n = len - used - 1;
    memcpy(buf + used, s, n);
    buf[used + n] = '\0';
}

/* WHY for the link LINK, whose target cannot be reached (stat said E): each hop named while it is a link itself
 * ("'b' -> 'c'"), so that the name said not to exist is the one that does not */
static void say_link(const char *link, int is_path, int e, char *why, size_t len)
{
    char to[4096], at[4096], next[4096], nat[4096], chain[1024] = "";
    if (link_hop(link, to, at, sizeof at)) snprintf(to, sizeof to, "?");
    struct stat st;
    for (int hop = 0; hop < 8 && e == ENOENT && lstat(at, &st) == 0 && S_ISLNK(st.st_mode); hop++) {
        if (link_hop(at, next, nat, sizeof nat)) break;
        append(chain, sizeof chain, " -> '");
        append(chain, sizeof chain, next);
        append(chain, sizeof chain, "'");
        memcpy(at, nat, sizeof at);
    }
    const char *what = e == ENOENT  ? "which does not exist"
                       : e == ELOOP ? "which leads back to itself (a loop of links)"
                                    : strerror(e);
    snprintf(why, len, "%s%s%sa symbolic link to '%s'%s, %s; nvscale does not make what a link points to",
             is_path ? "" : "'", is_path ? "" : link, is_path ? "" : "' is ", to, chain, what);
}

int nvs_link_to_nothing(const char *path, char *why, size_t len)
{
    char p[4096];
    if (!path || !*path || snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return 0;
    /* "l/" would have lstat follow the link l */
    for (size_t l = strlen(p); l > 1 && p[l - 1] == '/'; l--) p[l - 1] = '\0';
    struct stat st;
    for (int first = 1;; first = 0) {
        if (stat(p, &st) == 0) return 0; /* the nearest that exists: what is below it is made there */
        int e = errno;
        if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
            say_link(p, first, e, why, len);
            return 1;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) return 0;
        *slash = '\0';
        for (size_t l = strlen(p); l > 1 && p[l - 1] == '/'; l--) p[l - 1] = '\0'; /* "a//b" */
    }
}

int nvs_names_fit(const char *path, const char *anc)
{
    /* ANC is a prefix of PATH's text ("." stands for none) */
    size_t skip = strcmp(anc, ".") && !strncmp(path, anc, strlen(anc)) ? strlen(anc) : 0;
    long max = pathconf(anc, _PC_NAME_MAX);
    if (max <= 0) max = NAME_MAX;
    for (const char *p = path + skip; *p;) {
        size_t n = strcspn(p, "/");
        if ((long)n > max) return 0;
        p += n;
        p += strspn(p, "/");
    }
    return 1;
}

void nvs_unmake_dirs(nvs_made_dirs *m)
{
    if (!m->any) return;
    m->any = m->last = 0;
    m->named = 0;
    char p[sizeof m->path];
    memcpy(p, m->path, sizeof p);
    for (size_t i = strlen(p); i > 0; i--) {
        if (!m->made[i]) continue;
        m->made[i] = 0;
        char c = p[i];
        p[i] = '\0';
        if (rmdir(p) != 0 && errno != ENOENT) return;
        p[i] = c;
    }
}

/* The made directory that m->path names, by device and inode (into m->named; `last` whether there is one): the
 * deepest name's own mkdir answered for "a/new" only; "new/." and "new/sub/.." name new too, and a report that
 * failed left new behind with the data files written into it */
static void find_named(nvs_made_dirs *m)
{
    struct stat want, st;
    m->last = 0;
    m->named = 0;
    if (!m->any || stat(m->path, &want) != 0) return;
    for (size_t i = strlen(m->path); i > 0; i--) {
        if (!m->made[i]) continue;
        char c = m->path[i];
        m->path[i] = '\0';
        int same = stat(m->path, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino;
        m->path[i] = c;
        if (same) {
            m->named = i;
            m->last = 1;
            return;
        }
    }
}

nvs_result_t nvs_mkdir_made(const char *dir, nvs_made_dirs *m)
{
    m->any = m->last = 0;
    m->named = 0;
    if (!dir || !*dir || strlen(dir) >= sizeof m->path) {
        nvs_error("directory path %s", dir && *dir ? "too long" : "empty");
        return NVS_ERR_USAGE;
    }
    char *buf = m->path;
    strcpy(buf, dir);
    memset(m->made, 0, sizeof m->made);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        if (p[-1] == '/') { /* "a//b", "a/b/": the same directory as the shorter name */
            if (!*p) break;
            continue;
        }
        char c = *p;
        *p = '\0';
        int made = mkdir(buf, 0777) == 0;
        if (!made && errno != EEXIST) {
            int e = errno;
            nvs_error("cannot create directory %s: %s", buf, strerror(e));
            /* not made: `last` still said whether the one above it was, and report -o's undo then took the
             * path for made, tried to remove it whole and kept the directories made above it */
            m->last = 0;
            *p = c;
            return path_errno(e) ? NVS_ERR_USAGE : NVS_ERR_SYSTEM;
        }
        m->made[p - buf] = (unsigned char)made;
        m->any |= made;
        m->last = made;
        struct stat st;
        if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
            char why[4200];
            /* mkdir's EEXIST for a link to nothing: it is not a file of that name */
            if (!nvs_link_to_nothing(buf, why, sizeof why)) snprintf(why, sizeof why, "a file of that name exists");
            nvs_error("cannot create directory %s: %s", buf, why);
            *p = c;
            return NVS_ERR_USAGE;
        }
        *p = c;
        if (!c) break;
    }
    find_named(m);
    return NVS_OK;
}

nvs_result_t nvs_mkdir_p(const char *dir)
{
    nvs_made_dirs *m = malloc(sizeof *m);
    if (!m) {
        nvs_error("out of memory");
        return NVS_ERR_NOMEM;
    }
    nvs_result_t r = nvs_mkdir_made(dir, m);
    free(m);
    return r;
}

nvs_result_t nvs_write_text_file(const char *path, const char *text)
{
    nvs_outfile o;
    NVS_CHECK(nvs_outfile_open(&o, path));
    if (fputs(text, o.f) == EOF) {
        int e = errno;
        nvs_outfile_discard(&o);
        nvs_error("cannot write %s: %s", path, strerror(e));
        return NVS_ERR_SYSTEM;
    }
    return nvs_outfile_commit(&o);
}

static int is_stdin_alias(const char *path)
{
    return !strcmp(path, "/dev/stdin") || !strcmp(path, "/dev/fd/0") || !strcmp(path, "/proc/self/fd/0");
}

/* Opens an input without blocking on a FIFO or a device, and keeps it only when it is a regular file. -1 with one
 * message otherwise: "cannot read WHAT 'PATH': ..." when the caller names what the file is, else "cannot open
 * PATH: ..." / "PATH: is a FIFO ...". Standard input, by any name, is not opened here (read_stdin). The hint to
 * name standard input only with STDIN_OK: a reader that takes regular files only would refuse that too. */
static int open_input(const char *path, const char *what, int stdin_ok)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (what) nvs_error("cannot read %s '%s': %s", what, path, strerror(errno));
        else nvs_error("cannot open %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *k = S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                        : S_ISCHR(st.st_mode) ? "a character device"
                                              : kind_of(st.st_mode);
        const char *hint = stdin_ok ? " (standard input: /dev/stdin)" : "";
        if (what) nvs_error("cannot read %s '%s': it is %s, not a regular file%s", what, path, k, hint);
        else nvs_error("%s: is %s, not a regular file%s", path, k, hint);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int nvs_input_file_ok(const char *path, const char *what, int stdin_ok)
{
    int fd = open_input(path, what, stdin_ok);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

/* "-" and the names the system gives standard input are one input, read the same way: once, whole, and kept
 * (read_stdin). A pipe through /dev/stdin was refused by the readers that need a regular file (a run.json: "is a
 * FIFO (named pipe), not a regular file"), though "-" read it; and each read of /dev/stdin through its own dup
 * shared the descriptor's file position (a second --rules /dev/stdin < FILE under accept found it empty). */
int nvs_input_is_stdin(const char *path)
{
    return path && (!strcmp(path, "-") || is_stdin_alias(path));
}

const char *nvs_input_name(const char *path)
{
    return nvs_input_is_stdin(path) ? "standard input" : path;
}

const char *nvs_input_stream(const char *path)
{
    struct stat st;
    if (!strcmp(path, "-")) return "standard input";
    /* stat follows /dev/stdin to what standard input is: a file redirected with < is a regular file, read again as
     * often as wanted; a pipe is not. Not opened: opening a FIFO with no writer would block. */
    if (stat(path, &st) != 0) return NULL; /* missing: the reader says so */
    int std = is_stdin_alias(path);
    if (S_ISFIFO(st.st_mode)) return std ? "standard input, a pipe" : "a named pipe";
    if (S_ISCHR(st.st_mode)) return std ? "standard input, a character device" : "a character device";
    if (S_ISSOCK(st.st_mode)) return std ? "standard input, a socket" : "a socket";
    return NULL;
}

/* Reads F to its end into *out (NUL-terminated, malloc'd), NAME in the messages. */
static nvs_result_t read_stream(FILE *f, const char *name, size_t max_bytes, char **out, size_t *outlen)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap + 1);
    nvs_result_t res = NVS_OK;
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len > max_bytes) {
            nvs_error("%s is larger than %zu bytes: not a file nvscale reads", name, max_bytes);
            res = NVS_ERR_INPUT;
            break;
        }
        if (n == 0) break;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf) res = NVS_ERR_NOMEM;
    if (res == NVS_OK && ferror(f)) {
        nvs_error("cannot read %s: %s", name, strerror(errno));
        res = NVS_ERR_INPUT;
    }
    if (res != NVS_OK) {
        free(buf);
        return res;
    }
    if (memchr(buf, '\0', len)) {
        nvs_error("%s is not a text file (it contains NUL bytes)", name);
        free(buf);
        return NVS_ERR_INPUT;
    }
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return NVS_OK;
}

/* Standard input ("-", /dev/stdin, ...) can be read once, but one input may be read twice in a command (report
 * looks at its first run to tell a projection from a run.json, then loads it; model --calibrate loads its run
 * twice): the text read is kept, and every later read of it, by any of its names, is given a copy of it. */
static char *stdin_text;
static size_t stdin_len;

static nvs_result_t read_stdin(size_t max_bytes, char **out)
{
    const char *name = nvs_input_name("-");
    if (!stdin_text) {
        /* with nothing piped in, the command would wait for a terminal that no one types a run.json into */
        if (isatty(STDIN_FILENO)) {
            nvs_error("%s is a terminal: pipe the file into it (e.g. cat run.json | nvscale report -)", name);
            return NVS_ERR_INPUT;
        }
        /* closed at launch (<&-): cli/main.c holds descriptor 0 on /dev/null opened for writing, which fdopen
         * refused with "Invalid argument" */
        int fl = fcntl(STDIN_FILENO, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY) {
            nvs_error("%s is closed: pipe the file into it (e.g. cat run.json | nvscale report -)", name);
            return NVS_ERR_INPUT;
        }
        int fd = dup(STDIN_FILENO);
        FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
        if (!f) {
            nvs_error("cannot read %s: %s", name, strerror(errno));
            if (fd >= 0) close(fd);
            return NVS_ERR_INPUT;
        }
        nvs_result_t r = read_stream(f, name, max_bytes, &stdin_text, &stdin_len);
        fclose(f);
        if (r != NVS_OK) return r;
    }
    if (stdin_len > max_bytes) {
        nvs_error("%s is larger than %zu bytes: not a file nvscale reads", name, max_bytes);
        return NVS_ERR_INPUT;
    }
    *out = malloc(stdin_len + 1);
    if (!*out) return NVS_ERR_NOMEM;
    memcpy(*out, stdin_text, stdin_len + 1);
    return NVS_OK;
}

nvs_result_t nvs_read_text_file(const char *path, size_t max_bytes, char **out)
{
    *out = NULL;
    if (nvs_input_is_stdin(path)) return read_stdin(max_bytes, out);
    int fd = open_input(path, NULL, 1);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) {
            nvs_error("cannot open %s: %s", path, strerror(errno));
            close(fd);
        }
        return NVS_ERR_INPUT;
    }
    size_t len;
    nvs_result_t res = read_stream(f, path, max_bytes, out, &len);
    fclose(f);
    return res;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int nvs_remove_tree(const char *dir)
{
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *nvs_out_dash_why(const char *path, int dir)
{
    /* standard input by the names nvscale reads as '-': written through as a device or a FIFO, they appended to
     * the file redirected there (check - --junit /dev/stdin < run.json wrote into the run), or into the pipe */
    if (is_stdin_alias(path))
        return dir ? "standard input is not an output: give a directory path"
                   : "standard input is not an output: give a file, or /dev/stdout";
    if (strcmp(path, "-")) return NULL;
    return dir ? "'-' is not standard output here (a directory is written): give ./- for a directory named '-'"
               : "'-' is not standard output here: give /dev/stdout, or ./- for a file named '-'";
}
