/* static_buffer: a variant for the grader's tests (a device buffer cached in a static). */
#include "check_launch.h"

bool scale_on_device(float *host, int n, float factor, int threads_per_block)
{
    size_t bytes = (size_t)n * sizeof(float);
    /* one device buffer kept in a static from call to call, grown when too small: never freed */
    static float *dev = NULL;
    static size_t have = 0;
    bool ok = false;
    if (bytes > have) {
        if (dev && !checkRuntime(cudaFree(dev)))
            return false;
        dev = NULL;
        have = 0;
        if (!checkRuntime(cudaMalloc((void **)&dev, bytes)))
            return false;
        have = bytes;
    }
    if (!checkRuntime(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)))
        goto cleanup;

    launch_scale(dev, n, factor, threads_per_block);
    if (!checkRuntime(cudaGetLastError())) /* the launch error, at once */
        goto cleanup;

    ok = checkRuntime(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
cleanup:
    return ok;
}
