/* pop_then_destroy: a variant for the grader's tests. */
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

    CUcontext popped = NULL;
    ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    ok = checkDriver(cuCtxDestroy(popped)) && ok; /* destroyed after it is popped */

    return ok;
}
