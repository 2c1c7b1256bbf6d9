/* Running one child process of `nvscale compare` (fork + execve), its stdout to a file or captured, its stderr
 * to a file; and reading the tail of that file for the report when it fails. */
#ifndef NVS_COMPARE_CHILD_H
#define NVS_COMPARE_CHILD_H

#include <stddef.h>

#include "core/err.h"

typedef struct {
    int exited, code;   /* normal exit and its status */
    int signaled, sig;  /* killed by a signal */
    double wall_s;
} nvs_child_status;

/* Run prog with argv/envp. stdout goes to stdout_path, or, when capture != NULL, into a malloc'd buffer (at most
 * capture_max bytes; more is an error) returned in *capture. stderr goes to stderr_path. stdin is /dev/null.
 * Returns NVS_OK when the child ran (whatever its exit status: see *st), NVS_ERR_SYSTEM (logged) when it could
 * not be started or its output not be kept. An execve failure shows as exit status 127 with the reason in the
 * stderr file. */
nvs_result_t nvs_child_run(const char *prog, char *const argv[], char *const envp[], const char *stdout_path,
                           char **capture, size_t capture_max, const char *stderr_path, nvs_child_status *st);

/* "exit 3", "killed by signal 9 (Killed)" */
void nvs_child_status_text(const nvs_child_status *st, char *buf, size_t len);
int nvs_child_ok(const nvs_child_status *st);

/* The last `lines` lines of a text file (at most ~4 KiB), "" when unreadable. */
void nvs_file_tail(const char *path, int lines, char *buf, size_t len);

#endif
