/* peek: a variant for the grader's tests. */
#include "check_launch.h"

bool scale_on_device(float *host, int n, float factor, int threads_per_block)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dev = NULL;
    bool ok = false;
    if (!checkRuntime(cudaMalloc((void **)&dev, bytes)))
        return false;
    if (!checkRuntime(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)))
        goto cleanup;

    launch_scale(dev, n, factor, threads_per_block);
    if (!checkRuntime(cudaPeekAtLastError()))
        goto cleanup;

    ok = checkRuntime(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
cleanup:
    ok = checkRuntime(cudaFree(dev)) && ok;
    return ok;
}
