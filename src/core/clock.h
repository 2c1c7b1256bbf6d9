/* The one monotonic clock of nvscale (CLOCK_MONOTONIC: never jumps with NTP or date changes), in seconds and
 * microseconds. Every timeout, progress estimate and host-side timing reads it. */
#ifndef NVS_CLOCK_H
#define NVS_CLOCK_H

#include <time.h>

static inline double nvs_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double nvs_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

#endif
