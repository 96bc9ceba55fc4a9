// 01_hello_runtime/kernel.cu - the lesson's device code and its C-callable launchers.
//
// nvcc splits this file in two: the __global__ functions become PTX and SASS for the GPU
// (embedded in the object file as a fat binary), and the host part goes to the host C++
// compiler, with each <<<grid, block>>> launch rewritten into a call to cudaLaunchKernel.
// The lesson's C files cannot use <<<>>>, so core.c calls these extern "C" launchers.
#include <cuda_runtime.h>

// The kernel of the usual first example: add one to every element.
__global__ void add_one(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += 1.0f;
}

// A kernel that stops the GPU on purpose: __trap() aborts the grid, the launch itself
// succeeds, and the error only reaches the host at the next synchronisation.
__global__ void trap_on_purpose(void)
{
    __trap();
}

// A kernel that keeps one thread busy for `ns` nanoseconds of the GPU's global timer: long
// enough to see whether a launch returns before its kernel ends (step 6).
__global__ void spin(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// Can this GPU run the program's kernels? cudaFuncGetAttributes loads each (lazy loading loads
// a kernel at its first use) and fails as a launch would where the build holds no code the GPU
// can take: no SASS for it and no PTX the driver may JIT-compile (CUDA_FORCE_PTX_JIT,
// CUDA_DISABLE_PTX_JIT and their kin decide which it may take).
extern "C" cudaError_t kernels_load(void)
{
    cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, add_one);
    if (err == cudaSuccess)
        err = cudaFuncGetAttributes(&attr, trap_on_purpose);
    return err == cudaSuccess ? cudaFuncGetAttributes(&attr, spin) : err;
}

extern "C" void launch_add_one(float *data, int n, int threads_per_block)
{
    int blocks = (n + threads_per_block - 1) / threads_per_block;
    add_one<<<blocks, threads_per_block>>>(data, n);
    // No check here on purpose: the caller asks cudaGetLastError, which is the lesson.
}

extern "C" void launch_trap(void)
{
    trap_on_purpose<<<1, 1>>>();
}

extern "C" void launch_spin(unsigned long long ns)
{
    spin<<<1, 1>>>(ns);
}
