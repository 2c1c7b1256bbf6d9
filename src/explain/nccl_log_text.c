/* PURE: the small text readers of the NCCL log parser (nccl_log.c): integers and "key value" tokens. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain/nccl_log_priv.h"

/* Decimal integer at *pp (optional '-'); advances *pp. 0 on success. */
int nvs_nl_read_int(const char **pp, int *out)
{
    const char *p = *pp;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < -1000000000L || v > 1000000000L) return -1;
    *out = (int)v;
    *pp = end;
    return 0;
}

/* Value of "key <int>" anywhere in s (key matched as a whole word, case-sensitive). */
int nvs_nl_int_after(const char *s, const char *key, int *out)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
        if (p != s && p[-1] != ' ') continue;
        if (p[kl] != ' ') continue;
        const char *q = p + kl + 1;
        if (nvs_nl_read_int(&q, out) == 0) return 0;
    }
    return -1;
}

/* Token (up to whitespace) after "key " into buf. */
int nvs_nl_token_after(const char *s, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
        if (p != s && p[-1] != ' ') continue;
        if (p[kl] != ' ') continue;
        const char *q = p + kl + 1;
        size_t n = strcspn(q, " \t");
        if (!n) return -1;
        copy_str(buf, cap, q, n);
        return 0;
    }
    return -1;
}
