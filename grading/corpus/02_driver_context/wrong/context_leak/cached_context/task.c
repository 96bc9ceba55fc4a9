/* cached_context: a variant for the grader's tests (one context kept in a static, a decoy destroyed). */
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
    /* one context for every task, kept in a static; a decoy is created and destroyed each time */
    static CUcontext kept = NULL;
    CUcontext decoy = NULL, prev = NULL;
    CUdeviceptr buf = 0;
    if (!checkDriver(cuCtxGetCurrent(&prev)))
        return false;
    if (!kept && !create(&kept, dev))
        return false;
    if (!create(&decoy, dev) || !checkDriver(cuCtxDestroy(decoy)))
        return false;
    if (!checkDriver(cuCtxSetCurrent(kept)))
        return false;
    bool ok = checkDriver(cuMemAlloc(&buf, n * sizeof(float))) &&
              checkDriver(cuMemcpyHtoD(buf, in, n * sizeof(float))) &&
              checkDriver(cuMemcpyDtoH(out, buf, n * sizeof(float)));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;
    ok = checkDriver(cuCtxSetCurrent(prev)) && ok; /* the caller's context replaces it on top */
    return ok;
}
