// The launch shape of nvscale's element-wise kernels (CUDA only: included by .cu files): 256 threads a block
// and a grid that covers `n` elements with grid-stride loops without launching absurd numbers of blocks.
#ifndef NVS_GRID_H
#define NVS_GRID_H

#include <stddef.h>

namespace nvs_grid {

constexpr int kThreads = 256;

inline unsigned blocks_for(size_t n)
{
    size_t b = (n + kThreads - 1) / kThreads;
    if (b > 65535u * 8u) b = 65535u * 8u;
    return b ? (unsigned)b : 1u;
}

} // namespace nvs_grid

#endif
