/* This machine's host name, always a NUL-terminated, non-empty string. gethostname() may fail, and on a name
 * longer than the buffer POSIX leaves it unspecified whether the copy is terminated (glibc copies the truncated
 * bytes, says ENAMETOOLONG and leaves no NUL when the buffer is full). */
#ifndef NVS_HOST_NAME_H
#define NVS_HOST_NAME_H

#include <stddef.h>

/* What a host name that cannot be read is called (run.json, the ranks, log lines). */
#define NVS_HOST_UNKNOWN "unknown"

/* PURE. Makes buf (len bytes, as gethostname(buf, len) left it with return value rc and errno err) a usable
 * name: terminated within len; a truncated name (rc 0, or rc -1 with ENAMETOOLONG) kept, cut; any other
 * failure, or an empty name, becomes NVS_HOST_UNKNOWN (cut to len). Returns 0 when the name is the machine's
 * (possibly cut), -1 when it became NVS_HOST_UNKNOWN. Nothing when len is 0. */
int nvs_host_name_fix(char *buf, size_t len, int rc, int err);
/* gethostname() into buf, made usable by nvs_host_name_fix. */
int nvs_host_name(char *buf, size_t len);

#endif
