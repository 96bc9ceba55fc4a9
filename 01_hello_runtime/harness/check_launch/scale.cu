// The kernel of exercise check_launch and its launcher (harness: not the student's). The
// harness can make a launch fail the way a student cannot predict from the arguments (more
// dynamic shared memory than any GPU has), to see that the launch itself is checked.
#include <cuda_runtime.h>

#include "check_launch.h"

extern "C" {
int harness_sabotage = 0; // 1: the next launches ask for 1 GiB of dynamic shared memory
int harness_launches = 0; // launches since the harness last set it to 0
// what the last launch left pending (peeked: the student's code still finds it)
cudaError_t harness_launch_error = cudaSuccess;
}

__global__ void scale(float *data, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] *= factor;
}

extern "C" void launch_scale(float *data, int n, float factor, int threads_per_block)
{
    harness_launches++;
    size_t shared = harness_sabotage ? (size_t)1 << 30 : 0;
    int blocks = threads_per_block > 0 ? (n + threads_per_block - 1) / threads_per_block : 1;
    scale<<<blocks, threads_per_block, shared>>>(data, n, factor);
    harness_launch_error = cudaPeekAtLastError();
}
