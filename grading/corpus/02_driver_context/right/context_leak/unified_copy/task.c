/* unified_copy: a variant for the grader's tests: the buffer cleared with cuMemsetD8, the copies
 * by cuMemcpy (the Driver API's unified copy: the direction read from the pointers, unified
 * addressing), not cuMemcpyHtoD / cuMemcpyDtoH. */
#include <stdint.h>

#include "context_leak.h"

static bool create(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev));
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

static CUdeviceptr host(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

bool do_task(CUdevice dev, const float *in, float *out, size_t n)
{
    CUcontext ctx = NULL;
    CUdeviceptr buf = 0;
    size_t bytes = n * sizeof(float);
    if (!create(&ctx, dev))
        return false;
    bool ok = checkDriver(cuMemAlloc(&buf, bytes)) && checkDriver(cuMemsetD8(buf, 0, bytes)) &&
              checkDriver(cuMemcpy(buf, host(in), bytes)) &&
              checkDriver(cuMemcpy(host(out), buf, bytes));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;
    ok = checkDriver(cuCtxDestroy(ctx)) && ok;
    return ok;
}
