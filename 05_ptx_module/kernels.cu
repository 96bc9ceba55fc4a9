// 05_ptx_module/kernels.cu - the lesson's kernels, and one file that travels three roads.
//
//  1. The Makefile runs `nvcc -ptx` on it (build/kernels.ptx, text a person can read) and
//     `nvcc -cubin` (build/kernels.cubin, SASS for one card). main.c loads both through the
//     Driver API: cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx, cuModuleGetFunction.
//  2. The program embeds this very text (build/embedded.c) and hands it to NVRTC at run time,
//     which makes PTX again, inside the running program.
//  3. common/lesson.mk compiles every .cu of the lesson into the program, so nvcc also puts
//     these kernels into the program's own fat binary, where the runtime finds them: the
//     launcher at the bottom uses <<<>>> on `empty` (core.c compares its cost with
//     cuLaunchKernel's), and step 7 hands `axpy`'s host-side symbol to cudaGetKernel and
//     cudaGetFuncBySymbol.
//
// The kernels are extern "C" so that their names in PTX and in the module are plain ("axpy"),
// not C++-mangled ("_Z4axpyfPKfPfi"): cuModuleGetFunction looks a kernel up by that name.

// y[i] = a * x[i] + y[i] for i < n.
extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// Does nothing: what a launch costs when the kernel costs nothing.
extern "C" __global__ void empty(void) {}

#ifdef KERNELS_FATBIN
// Only in build/kernels.fatbin (the Makefile's -DKERNELS_FATBIN): one variable more makes its
// PTX a text that no JIT cache has seen, so that step 2e can tell from the JIT's log whether
// the driver compiled that PTX or took the fatbin's SASS.
__device__ int kernels_fatbin_marker;
#endif

// Host code. NVRTC defines __CUDACC_RTC__ and compiles device code only, so it skips this
// part; `nvcc -ptx` and `nvcc -cubin` ignore host code anyway.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>

// One launch of `empty` on `stream` (NULL: the legacy default stream), the runtime's way: nvcc
// turns the <<<>>> into a call to cudaLaunchKernel. core.c calls it from C (launch_empty_runtime_n;
// step 5 also captures such launches into a CUDA graph). The caller checks cudaGetLastError().
extern "C" void launch_empty_runtime_on(cudaStream_t stream)
{
    empty<<<1, 1, 0, stream>>>();
}

// The host-side address nvcc gives each kernel: what <<<>>>, cudaLaunchKernel, cudaGetKernel
// and cudaGetFuncBySymbol take to name a kernel compiled into the program (step 7).
extern "C" const void *axpy_symbol(void)
{
    return (const void *)axpy;
}
#endif
