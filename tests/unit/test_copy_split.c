/* collectives/copy_split.h, the split of a device copy into head bytes, a body of aligned words and tail bytes:
 * for every pair of offsets modulo 32 and sizes around the word boundaries, the pieces add up to the copy, the
 * body's pointers are both aligned to its width, the width is the widest both pointers allow, and a copy done
 * piece by piece (as copy_vec_kernel does it) gives the bytes memcpy gives. Pure: no GPU. */
#include <stdint.h>
#include <string.h>

#include "collectives/copy_split.h"
#include "t.h"

#define AREA 8192

static unsigned char src_buf[AREA] __attribute__((aligned(64)));
static unsigned char dst_buf[AREA] __attribute__((aligned(64)));
static unsigned char want[AREA] __attribute__((aligned(64)));

/* the widest power of two up to 16 dividing d - s */
static unsigned widest(uintptr_t d, uintptr_t s)
{
    unsigned w = 16;
    while (w > 1 && (d - s) % w) w /= 2;
    return w;
}

static void t_split_covers_and_aligns(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 100, 1000, 4097};
    for (unsigned so = 0; so < 32; so++)
        for (unsigned dof = 0; dof < 32; dof++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                size_t bytes = sizes[k];
                uintptr_t d = (uintptr_t)(dst_buf + dof), s = (uintptr_t)(src_buf + so);
                nvs_copy_split sp = nvs_copy_split_of(d, s, bytes);
                if (sp.width != widest(d, s))
                    T_FAIL("src +%u dst +%u: width %u, expected %u", so, dof, sp.width, widest(d, s));
                if (sp.head + sp.n * sp.width + sp.tail != bytes)
                    T_FAIL("src +%u dst +%u, %zu bytes: pieces add up to %zu", so, dof, bytes,
                           sp.head + sp.n * sp.width + sp.tail);
                if (sp.head >= sp.width && sp.width > 1) T_FAIL("head %zu not below width %u", sp.head, sp.width);
                if (sp.tail >= sp.width && sp.width > 1) T_FAIL("tail %zu not below width %u", sp.tail, sp.width);
                if (sp.n && ((d + sp.head) % sp.width || (s + sp.head) % sp.width))
                    T_FAIL("src +%u dst +%u: body not aligned to %u", so, dof, sp.width);
            }
}

static void t_piecewise_copy_equals_memcpy(void)
{
    for (size_t i = 0; i < AREA; i++) src_buf[i] = (unsigned char)(i * 131u + 7u);
    for (unsigned so = 0; so < 32; so++)
        for (unsigned dof = 0; dof < 32; dof++) {
            size_t bytes = 4097 + so * 3 + dof;
            memset(dst_buf, 0xa5, AREA);
            memcpy(want, dst_buf, AREA);
            memcpy(want + dof, src_buf + so, bytes);
            nvs_copy_split sp = nvs_copy_split_of((uintptr_t)(dst_buf + dof), (uintptr_t)(src_buf + so), bytes);
            unsigned char *d = dst_buf + dof;
            const unsigned char *s = src_buf + so;
            for (size_t b = 0; b < sp.head; b++) d[b] = s[b];
            for (size_t w = 0; w < sp.n; w++) memcpy(d + sp.head + w * sp.width, s + sp.head + w * sp.width, sp.width);
            size_t body = sp.head + sp.n * sp.width;
            for (size_t b = 0; b < sp.tail; b++) d[body + b] = s[body + b];
            if (memcmp(dst_buf, want, AREA)) T_FAIL("src +%u dst +%u, %zu bytes: wrong bytes", so, dof, bytes);
        }
}

static void t_aligned_is_one_body(void)
{
    /* what the step's aligned copies get: 16-byte words only */
    nvs_copy_split sp = nvs_copy_split_of(4096, 8192, 1 << 20);
    T_EQ_U(sp.width, 16);
    T_EQ_U(sp.head, 0);
    T_EQ_U(sp.tail, 0);
    T_EQ_U(sp.n, (1 << 20) / 16);
    /* a bf16 piece at an odd element offset from an aligned scratch buffer: 2-byte words, not bytes */
    sp = nvs_copy_split_of(4096, 8192 + 2 * 3, 1000);
    T_EQ_U(sp.width, 2);
    /* same phase, odd start: a head, 16-byte words, a tail */
    sp = nvs_copy_split_of(4096 + 6, 8192 + 6, 1000);
    T_EQ_U(sp.width, 16);
    T_EQ_U(sp.head, 10);
    T_EQ_U(sp.n, 61);
    T_EQ_U(sp.tail, 14);
}

T_LIST = {T_CASE(t_split_covers_and_aligns), T_CASE(t_piecewise_copy_equals_memcpy), T_CASE(t_aligned_is_one_body)};
T_MAIN
