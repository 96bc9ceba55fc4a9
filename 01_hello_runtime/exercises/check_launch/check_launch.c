/*
 * Exercise 2 - check_launch: a kernel launch fails silently unless you ask.
 *
 * This file is yours (the only one graded). The harness (harness/check_launch/) calls
 * scale_on_device() on fresh data with several sizes and block sizes, and on launches that
 * fail: 2048 threads per block (more than any GPU allows), and a launch that the harness's
 * launcher makes fail whatever the arguments. As given, a failed launch goes unnoticed: the
 * data is copied back unchanged and the function says all went well.
 * FIXME: right after launch_scale(...), check the launch the way lesson step 5 does, so that a
 * failed launch's own error is handed to checkRuntime (which prints the file, line, error name
 * and message on stderr; the harness sees the error handed over, not the text), nothing is
 * copied back (host[] stays as it was), the buffer is freed and the function returns false.
 * Grade it: make check   (from 01_hello_runtime/)
 */
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
    /* FIXME: check the launch here: its own error to checkRuntime, then goto cleanup. */

    ok = checkRuntime(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
cleanup:
    ok = checkRuntime(cudaFree(dev)) && ok;
    return ok;
}
