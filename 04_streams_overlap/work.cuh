// 04_streams_overlap/work.cuh - the lesson's kernel and its C-callable launcher.
// Included by kernel.cu here and by each exercise's kernel.cu (one copy of the code).
#include <cuda_runtime.h>

#include "work.h"

// One thread per element; a chain of `work` dependent fused multiply-adds. The chain
// cannot be shortened or reordered by the compiler (__fmaf_rn is exact IEEE fma), so
// the kernel's time grows with `work` and its result matches the host's fmaf bit for bit.
__global__ void work_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n,
                            int work)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
#pragma unroll 8
    for (int k = 0; k < work; k++)
        x = __fmaf_rn(x, WORK_A, WORK_B);
    out[i] = x;
}

// Load the kernel now: with lazy loading (the default since CUDA 12.2) its first launch
// loads it, which may wait for the device, and so for a held gate (common/gate.h).
extern "C" cudaError_t preload_work(void)
{
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, work_kernel);
}

extern "C" cudaError_t launch_work(const float *in, float *out, size_t n, int work,
                                   cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    const unsigned threads = 256;
    unsigned blocks = (unsigned)((n + threads - 1) / threads);
    work_kernel<<<blocks, threads, 0, stream>>>(in, out, n, work);
    return cudaGetLastError();
}
