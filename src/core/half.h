/* IEEE 754 binary16 and bfloat16 <-> binary32 conversions on the host (PURE), round to nearest even, for the
 * MPI host backend and the tests. Written from the formats' definitions (IEEE 754-2008 section 3.6; bfloat16 =
 * the upper 16 bits of a binary32). */
#ifndef NVS_HALF_H
#define NVS_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t nvs_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float nvs_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t nvs_f32_to_bf16(float f)
{
    uint32_t u = nvs_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* NaN stays NaN */
    u += 0x7fffu + ((u >> 16) & 1u);                                           /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static inline float nvs_bf16_to_f32(uint16_t h) { return nvs_bits_f32((uint32_t)h << 16); }

static inline float nvs_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) return nvs_bits_f32(sign | 0x7f800000u | (man << 13)); /* inf / NaN */
    if (exp == 0) {
        if (!man) return nvs_bits_f32(sign);
        /* subnormal: man * 2^-24 */
        float v = (float)man / 16777216.0f;
        return sign ? -v : v;
    }
    return nvs_bits_f32(sign | ((exp + 112u) << 23) | (man << 13)); /* rebias 15 -> 127 */
}

static inline uint16_t nvs_f32_to_f16(float f)
{
    uint32_t u = nvs_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return sign | 0x7e00u;   /* NaN */
    if (abs >= 0x477ff000u) return sign | 0x7c00u;  /* rounds to >= 65520: infinity */
    if (abs < 0x38800000u) {                         /* below the smallest normal 2^-14: subnormal or zero */
        float a = nvs_bits_f32(abs) * 16777216.0f;   /* in units of 2^-24 */
        uint32_t q = (uint32_t)a;
        float rem = a - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1u))) q++;
        return sign | (uint16_t)q;
    }
    uint32_t exp = (abs >> 23) - 112u, man = abs & 0x7fffffu;
    uint32_t h = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* carries into the exponent correctly */
    return sign | (uint16_t)h;
}

#endif
