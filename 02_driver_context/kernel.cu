// 02_driver_context/kernel.cu - one runtime kernel and its C-callable launcher.
//
// Step 5 launches it with <<<>>> while a context made by cuCtxCreate is current: the runtime
// then loads this file's device code into that context and runs the kernel there, not in the
// primary context. main.c is plain C, so it calls the extern "C" launcher below.
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
