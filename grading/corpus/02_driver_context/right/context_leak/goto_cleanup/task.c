/* goto_cleanup: a variant for the grader's tests (a correct alternative). */
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
    bool ok = false;
    if (!create(&ctx, dev)) /* pushed: current from here on */
        return false;
    if (!checkDriver(cuMemAlloc(&buf, n * sizeof(float))))
        goto cleanup;
    if (!checkDriver(cuMemcpyHtoD(buf, in, n * sizeof(float))) ||
        !checkDriver(cuMemcpyDtoH(out, buf, n * sizeof(float))))
        goto cleanup;
    ok = true;
cleanup:
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;
    ok = checkDriver(cuCtxDestroy(ctx)) && ok; /* on every path */
    return ok;
}
