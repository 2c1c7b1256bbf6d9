/* See host_name.h. */
#include "core/host_name.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int nvs_host_name_fix(char *buf, size_t len, int rc, int err)
{
    if (!len) return -1;
    if (rc == 0 || err == ENAMETOOLONG) {
        buf[len - 1] = '\0'; /* a truncated copy may have no NUL (POSIX gethostname) */
        if (buf[0]) return 0;
    }
    snprintf(buf, len, "%s", NVS_HOST_UNKNOWN);
    return -1;
}

int nvs_host_name(char *buf, size_t len)
{
    if (!len) return -1;
    buf[0] = '\0';
    errno = 0;
    int rc = gethostname(buf, len);
    return nvs_host_name_fix(buf, len, rc, rc ? errno : 0);
}
