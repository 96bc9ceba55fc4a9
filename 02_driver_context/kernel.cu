// 02_driver_context/kernel.cu - two runtime kernels and their C-callable launchers.
//
// Step 5 launches add_one with <<<>>> while a context made by cuCtxCreate is current: the
// runtime then loads this file's device code into that context and runs the kernel there, not
// in the primary context. Steps 4 and 8 launch write_pattern in one context over another
// context's buffer. The steps are plain C, so they call the extern "C" launchers below.
#include <cuda_runtime.h>

__global__ void add_one(unsigned int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += 1u;
}

// Returns the launch's own error (a bad configuration); faults show up at synchronisation.
extern "C" cudaError_t launch_add_one(unsigned int *data, int n)
{
    const int threads = 256;
    add_one<<<(n + threads - 1) / threads, threads>>>(data, n);
    return cudaGetLastError();
}

// Writes the host's fill() pattern for `seed` into data[0..n). It only writes: under
// compute-sanitizer's initcheck, a kernel in ctxB that read ctxA's buffer first (add_one) had
// all 262144 words reported uninitialised, though ctxA had copied them in.
__global__ void write_pattern(unsigned int *data, int n, unsigned int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = seed * 2654435761u + (unsigned int)i;
}

extern "C" cudaError_t launch_write_pattern(unsigned int *data, int n, unsigned int seed)
{
    const int threads = 256;
    write_pattern<<<(n + threads - 1) / threads, threads>>>(data, n, seed);
    return cudaGetLastError();
}

// Whether this GPU can load the kernels as the environment asks (CUDA_FORCE_PTX_JIT,
// CUDA_DISABLE_PTX_JIT): the loading error, if any. Called only after a step failed.
extern "C" cudaError_t kernel_image_check(void)
{
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, add_one);
}
