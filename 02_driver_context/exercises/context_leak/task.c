/*
 * Exercise 3 - context_leak: a context you create lives until you destroy it.
 *
 * This file is yours (the only one graded). do_task() creates a context for one piece of
 * work, allocates a buffer, copies the input there and back, frees the buffer ... and returns.
 * The harness (harness/context_leak/) runs four tasks from an "observer" context and asks the
 * driver what is left: the free device memory before and after (beside a control sample: what
 * one such context takes on this GPU), the contexts created and not destroyed, and the stack;
 * it also makes one task's allocation fail: that task returns false and still ends its context.
 * As given, every task leaves its context behind: the device memory each one took stays taken,
 * and the context stack of the thread grows by one entry per task.
 * FIXME: at the end of do_task, end the context's life (popping it is not enough: a popped
 * context still exists and still holds its memory). Check the call.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "context_leak.h"

static bool create(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

bool do_task(CUdevice dev, const float *in, float *out, size_t n)
{
    CUcontext ctx = NULL;
    CUdeviceptr buf = 0;
    if (!create(&ctx, dev)) /* pushed: current from here on */
        return false;
    bool ok = checkDriver(cuMemAlloc(&buf, n * sizeof(float))) &&
              checkDriver(cuMemcpyHtoD(buf, in, n * sizeof(float))) &&
              checkDriver(cuMemcpyDtoH(out, buf, n * sizeof(float)));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;

    /* FIXME goes here. */

    return ok;
}
