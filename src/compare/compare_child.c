/* fork/execve of compare's children (see compare_child.h). */
#include "core/clock.h"
#include "compare/compare_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "core/log.h"

/* In the child after fork: only async-signal-safe calls until execve. */
static void child_exec(const char *prog, char *const argv[], char *const envp[], int out_fd, int err_fd)
{
    int in_fd = open("/dev/null", O_RDONLY);
    if (in_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(127);
    execve(prog, argv, envp);
    static const char msg[] = "nvscale compare: cannot execute the child program: ";
    const char *why = strerror(errno); /* not async-signal-safe in theory; the process is about to exit */
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, why, strlen(why)) < 0 || write(2, "\n", 1) < 0) _exit(127);
    _exit(127);
}

/* Every wait below looks at the flag at least every POLL_MS: a signal that lands just before a blocking read or
 * waitpid interrupts nothing (the handler has already run), and compare would have waited for the whole child
 * run before passing the stop on. 100 ms: no one notices it after a Ctrl-C, and a child runs seconds or more. */
#define POLL_MS 100

/* compare interrupted (Ctrl-C, SIGTERM, SIGHUP: core/interrupt.h) while a child runs: the child is asked to stop
 * too, once, with SIGTERM, and stops as an interrupted run does (run.json "interrupted" with what it measured). A
 * Ctrl-C at the terminal reached it already (one process group); SIGTERM, not a second SIGINT, which would end it at
 * once without a word. A SIGTERM sent to compare alone reached only compare. */
static void pass_on_stop(pid_t pid, int *stopped)
{
    if (*stopped || !nvs_interrupted()) return;
    *stopped = 1;
    if (kill(pid, SIGTERM) != 0 && errno != ESRCH)
        nvs_warn("cannot stop the child %ld: %s", (long)pid, strerror(errno));
}

nvs_result_t nvs_child_run(const char *prog, char *const argv[], char *const envp[], const char *stdout_path,
                           char **capture, size_t capture_max, const char *stderr_path, nvs_child_status *st)
{
    int out_fd = -1, err_fd = -1, pipe_fd[2] = {-1, -1};
    nvs_result_t res = NVS_ERR_SYSTEM;
    char *buf = NULL;
    size_t len = 0;
    memset(st, 0, sizeof *st);
    if (capture) *capture = NULL;

    err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (err_fd < 0) {
        nvs_error("cannot create %s: %s", stderr_path, strerror(errno));
        goto out;
    }
    if (capture) {
        if (pipe2(pipe_fd, O_CLOEXEC) != 0) {
            nvs_error("pipe: %s", strerror(errno));
            goto out;
        }
        out_fd = pipe_fd[1];
    } else {
        out_fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (out_fd < 0) {
            nvs_error("cannot create %s: %s", stdout_path, strerror(errno));
            goto out;
        }
    }
    /* nothing buffered may be written twice (once by the child's copy of our stdio buffers) */
    if (fflush(stdout) != 0 || fflush(stderr) != 0) {
        nvs_error("cannot flush standard output: %s", strerror(errno));
        goto out;
    }
    double t0 = nvs_now_s();
    pid_t pid = fork();
    if (pid < 0) {
        nvs_error("fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) child_exec(prog, argv, envp, out_fd, err_fd);

    int read_failed = 0, stopped = 0;
    if (capture) {
        close(pipe_fd[1]);
        pipe_fd[1] = -1;
        out_fd = -1;
        size_t cap = 0;
        for (;;) {
            if (len + 4096 + 1 > cap) {
                size_t ncap = cap ? cap * 2 : 65536;
                char *nb = realloc(buf, ncap);
                if (!nb) {
                    read_failed = ENOMEM;
                    break;
                }
                buf = nb;
                cap = ncap;
            }
            pass_on_stop(pid, &stopped);
            struct pollfd pfd = {.fd = pipe_fd[0], .events = POLLIN};
            int ready = poll(&pfd, 1, POLL_MS);
            if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
            if (ready < 0) {
                read_failed = errno;
                break;
            }
            ssize_t r = read(pipe_fd[0], buf + len, cap - len - 1);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                read_failed = errno;
                break;
            }
            if (r == 0) break;
            len += (size_t)r;
            if (len > capture_max) {
                read_failed = EFBIG;
                break;
            }
        }
        close(pipe_fd[0]); /* the child gets SIGPIPE if it writes on: we are not reading any more */
        pipe_fd[0] = -1;
    }
    int status;
    pid_t w;
    for (;;) {
        pass_on_stop(pid, &stopped);
        w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) break;
        nanosleep(&(struct timespec){0, POLL_MS * 1000000L}, NULL); /* EINTR: looks at the flag at once */
    }
    if (w < 0) {
        nvs_error("waitpid: %s", strerror(errno));
        goto out;
    }
    st->wall_s = nvs_now_s() - t0;
    if (WIFEXITED(status)) {
        st->exited = 1;
        st->code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        st->signaled = 1;
        st->sig = WTERMSIG(status);
    }
    if (read_failed) {
        if (read_failed == EFBIG) nvs_error("%s wrote more than %zu bytes on stdout", prog, capture_max);
        else nvs_error("cannot read the output of %s: %s", prog, strerror(read_failed));
        goto out;
    }
    if (capture) {
        buf[len] = '\0';
        *capture = buf;
        buf = NULL;
    }
    res = NVS_OK;
out:
    free(buf);
    if (out_fd >= 0) close(out_fd);
    if (pipe_fd[0] >= 0) close(pipe_fd[0]);
    if (err_fd >= 0 && close(err_fd) != 0 && res == NVS_OK) {
        nvs_error("cannot write %s: %s", stderr_path, strerror(errno));
        res = NVS_ERR_SYSTEM;
    }
    return res;
}

void nvs_child_status_text(const nvs_child_status *st, char *buf, size_t len)
{
    if (st->exited) snprintf(buf, len, "exit %d", st->code);
    else if (st->signaled) snprintf(buf, len, "killed by signal %d (%s)", st->sig, strsignal(st->sig));
    else snprintf(buf, len, "did not finish");
}

int nvs_child_ok(const nvs_child_status *st) { return st->exited && st->code == 0; }

void nvs_file_tail(const char *path, int lines, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) return;
    char tail[4097];
    long off = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        off = size > 4096 ? size - 4096 : 0;
    }
    size_t n = 0;
    if (fseek(f, off, SEEK_SET) == 0) n = fread(tail, 1, sizeof tail - 1, f);
    fclose(f);
    tail[n] = '\0';
    while (n && tail[n - 1] == '\n') tail[--n] = '\0';
    const char *p = tail + n;
    int k = 0;
    while (p > tail) {
        if (p[-1] == '\n' && ++k == lines) break;
        p--;
    }
    snprintf(buf, len, "%s", p);
}
