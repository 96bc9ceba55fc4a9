// Exercise 2's device code: multiply every element by a factor.
#include <cuda_runtime.h>

__global__ void scale(float *data, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] *= factor;
}

extern "C" void launch_scale(float *data, int n, float factor, int threads_per_block)
{
    scale<<<(n + threads_per_block - 1) / threads_per_block, threads_per_block>>>(data, n, factor);
}
