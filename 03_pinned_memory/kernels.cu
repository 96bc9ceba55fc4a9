// 03_pinned_memory/kernels.cu - the lesson's device code and its C-callable launchers.
//
// main.c is plain C, so each kernel is started through an extern "C" launcher that does the
// <<<grid, block, 0, stream>>> launch and returns cudaGetLastError() (a bad launch shows at once).
#include <cuda_runtime.h>
#include <stdint.h>

#include "pattern.h"

static unsigned blocks_for(size_t n)
{
    size_t blocks = (n + 255) / 256;
    return (unsigned)(blocks < 4096 ? (blocks ? blocks : 1)
                                    : 4096); // grid-stride loops do the rest
}

// Fill n words of device memory with the pattern (the source of a device-to-host copy).
__global__ void fill_pattern(uint32_t *data, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = pattern_word(i, seed);
}

// Count the words that differ from the pattern (checks a host-to-device copy where it landed).
__global__ void count_mismatches(const uint32_t *data, size_t n, uint32_t seed,
                                 unsigned long long *bad)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mine += data[i] != pattern_word(i, seed);
    if (mine)
        atomicAdd(bad, mine);
}

// out = 3 * in + 1, four words per thread and step (16-byte loads and stores: over PCIe, wide
// accesses and many of them in flight are what make zero-copy fast). `in` and `out` may point to
// mapped host memory: then every load and store crosses the PCIe link.
__global__ void triple_plus_one(const uint4 *in, uint4 *out, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = in[i];
        out[i] = make_uint4(3u * v.x + 1u, 3u * v.y + 1u, 3u * v.z + 1u, 3u * v.w + 1u);
    }
}

extern "C" cudaError_t launch_fill_pattern(uint32_t *data, size_t n, uint32_t seed,
                                           cudaStream_t stream)
{
    fill_pattern<<<blocks_for(n), 256, 0, stream>>>(data, n, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t launch_count_mismatches(const uint32_t *data, size_t n, uint32_t seed,
                                               unsigned long long *bad, cudaStream_t stream)
{
    count_mismatches<<<blocks_for(n), 256, 0, stream>>>(data, n, seed, bad);
    return cudaGetLastError();
}

// n is in words and must be a multiple of 4; in and out 16-byte aligned.
extern "C" cudaError_t launch_triple_plus_one(const uint32_t *in, uint32_t *out, size_t n,
                                              cudaStream_t stream)
{
    size_t n4 = n / 4;
    triple_plus_one<<<blocks_for(n4), 256, 0, stream>>>((const uint4 *)in, (uint4 *)out, n4);
    return cudaGetLastError();
}

// Spin for `ns` nanoseconds of the GPU's global timer: a kernel of known length for the copies
// of step 4 to queue behind. One thread is enough.
__global__ void spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

extern "C" cudaError_t launch_spin(unsigned long long ns, cudaStream_t stream)
{
    spin<<<1, 1, 0, stream>>>(ns);
    return cudaGetLastError();
}

// Load every kernel now. With lazy loading (the default since CUDA 12.2) a kernel is loaded at
// its first launch, and loading may wait for the device: a first launch queued behind a held
// gate (common/gate.h) would wait for the gate, which waits for the host. nvbandwidth preloads
// its kernels for the same reason.
extern "C" cudaError_t preload_kernels(void)
{
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, fill_pattern);
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&a, count_mismatches);
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&a, triple_plus_one);
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&a, spin);
    return e;
}
