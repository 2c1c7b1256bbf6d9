/* The bound of a NET hop (net_bound.h). */
#include "core/net_bound.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* source may be NULL (len 0): the caller wants the value only, and no text is made */
static void say(char *source, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *source, size_t len, const char *fmt, ...)
{
    if (!source || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(source, len, fmt, ap);
    va_end(ap);
}

double nvs_net_hop_bound(const nvs_net_end *a, const nvs_net_end *b, double given_gbps, char *source, size_t len)
{
    if (a->machine && a->machine[0] && b->machine && !strcmp(a->machine, b->machine)) {
        say(source, len,
                 "network between virtual hosts of %.60s (--emulate-nodes): the traffic stays inside the machine "
                 "(loopback socket, or HCA loopback), so no NIC rate bounds it",
                 a->machine);
        return -1;
    }
    if (given_gbps > 0) {
        say(source, len, "network: %.2f GB/s per direction (given)", given_gbps);
        return given_gbps;
    }
    if (!(a->gbps > 0) || !(b->gbps > 0)) {
        const nvs_net_end *u = a->gbps > 0 ? b : a;
        say(source, len, "network: no bound known (GPU%d: %.300s)", u->gpu,
                 u->source && u->source[0] ? u->source : "no NIC information");
        return -1;
    }
    const nvs_net_end *slow = a->gbps <= b->gbps ? a : b;
    say(source, len, "network, the slower side: GPU%d's %.300s", slow->gpu, slow->source ? slow->source : "");
    return slow->gbps;
}
