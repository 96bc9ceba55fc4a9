// 04_streams_overlap/kernel.cu - the lesson's device code: work.cuh, shared with the
// exercises, holds the kernel and the extern "C" launcher that core.c calls; below, the same
// kernel as a function handle for the Driver API's cuLaunchKernel (step 8).
#include "work.cuh"

// cudaFunction_t and CUfunction are the same type ("may be used interchangeably by casting",
// cuda_runtime_api.h, "Interactions between CUfunction and cudaFunction_t").
extern "C" cudaError_t work_function(cudaFunction_t *f)
{
    return cudaGetFuncBySymbol(f, (const void *)work_kernel);
}
