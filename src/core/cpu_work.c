/* See cpu_work.h. */
#include "core/cpu_work.h"

#include <stdint.h>

#include "core/clock.h"

#define NVS_WORK_TABLE 16384u /* 16 Ki x 4 B = 64 KiB */
#define NVS_WORK_CHUNK 256u   /* units between clock reads while calibrating */

static uint32_t table[NVS_WORK_TABLE];
static _Thread_local uint32_t cursor = 1;

static void table_init(void)
{
    static int done;
    if (done) return;
    /* a random permutation cycle: every step lands somewhere unpredictable in the table */
    uint32_t s = 2463534242u;
    for (uint32_t i = 0; i < NVS_WORK_TABLE; i++) table[i] = i;
    for (uint32_t i = NVS_WORK_TABLE - 1; i > 0; i--) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        uint32_t j = s % (i + 1), t = table[i];
        table[i] = table[j];
        table[j] = t;
    }
    done = 1;
}

unsigned nvs_cpu_work(double units)
{
    table_init();
    uint32_t c = cursor, h = 0x9e3779b9u;
    for (long n = (long)units; n > 0; n--) {
        c = table[c & (NVS_WORK_TABLE - 1)];
        h = (h ^ c) * 0x85ebca6bu;
        if (h & 1) c ^= h >> 7;
    }
    cursor = c | 1;
    return h;
}

double nvs_cpu_work_calibrate(double ms)
{
    table_init();
    nvs_cpu_work(20000); /* warm the table into the caches */
    double t0 = nvs_now_us(), t;
    double units = 0;
    do {
        nvs_cpu_work(NVS_WORK_CHUNK);
        units += NVS_WORK_CHUNK;
        t = nvs_now_us();
    } while (t - t0 < ms * 1e3);
    double rate = units / (t - t0);
    return rate > 0 ? rate : 1.0;
}
