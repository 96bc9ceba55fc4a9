/* Right, another way: the task asks the device how much memory is free before it allocates
 * (cuMemGetInfo, a memory query of the context it made) and refuses work that cannot fit. */
#include "context_leak.h"

bool do_task(CUdevice dev, const float *in, float *out, size_t n)
{
    CUcontext ctx = NULL;
    CUdeviceptr buf = 0;
    size_t free_bytes = 0, total = 0, bytes = n * sizeof(float);
#if CUDA_VERSION >= 13000
    if (!checkDriver(cuCtxCreate(&ctx, NULL, 0, dev)))
#else
    if (!checkDriver(cuCtxCreate(&ctx, 0, dev)))
#endif
        return false;
    bool ok = checkDriver(cuMemGetInfo(&free_bytes, &total)) && bytes <= free_bytes &&
              checkDriver(cuMemAlloc(&buf, bytes)) && checkDriver(cuMemcpyHtoD(buf, in, bytes)) &&
              checkDriver(cuMemcpyDtoH(out, buf, bytes));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;
    return checkDriver(cuCtxDestroy(ctx)) && ok;
}
