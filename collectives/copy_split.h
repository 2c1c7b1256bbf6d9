/* How nvs_kern_copy splits a copy (PURE, shared by the CUDA launcher and its CPU unit test): the widest access
 * width both pointers can share (16, 8, 4, 2 or 1 bytes: the largest power of two, at most 16, dividing
 * dst - src), then the bytes before dst reaches that width's boundary (head), the whole words (n, of `width`
 * bytes each, from dst + head and src + head, both aligned), and the bytes left (tail). head and tail are less
 * than `width`, so a copy at any offsets runs at the widest access its pointers allow instead of byte by byte:
 * the training step copies pieces of activations at element offsets (the fractional layout copies), whose ends
 * fall anywhere. */
#ifndef NVS_COPY_SPLIT_H
#define NVS_COPY_SPLIT_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    unsigned width; /* bytes per access of the body: 16, 8, 4, 2 or 1 */
    size_t head;    /* bytes copied one at a time before the body */
    size_t n;       /* words of `width` bytes in the body */
    size_t tail;    /* bytes copied one at a time after it */
} nvs_copy_split;

static inline nvs_copy_split nvs_copy_split_of(uintptr_t dst, uintptr_t src, size_t bytes)
{
    nvs_copy_split s;
    unsigned w = 16;
    while (w > 1 && ((dst ^ src) & (w - 1))) w /= 2; /* same phase modulo w: both reach a boundary together */
    s.width = w;
    s.head = (w - (unsigned)(dst & (w - 1))) & (w - 1);
    if (s.head > bytes) s.head = bytes;
    s.n = (bytes - s.head) / w;
    s.tail = bytes - s.head - s.n * w;
    return s;
}
#endif
