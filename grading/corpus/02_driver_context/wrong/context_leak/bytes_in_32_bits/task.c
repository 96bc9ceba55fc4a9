/* Wrong: the byte count is kept in an int. Every size below 2^31 bytes works; past it the int
 * goes negative, and as a size_t it asks for more memory than exists: the task fails. */
#include "context_leak.h"

bool do_task(CUdevice dev, const float *in, float *out, size_t n)
{
    CUcontext ctx = NULL;
    CUdeviceptr buf = 0;
    int bytes = (int)(n * sizeof(float));
#if CUDA_VERSION >= 13000
    if (!checkDriver(cuCtxCreate(&ctx, NULL, 0, dev)))
#else
    if (!checkDriver(cuCtxCreate(&ctx, 0, dev)))
#endif
        return false;
    bool ok = checkDriver(cuMemAlloc(&buf, bytes)) && checkDriver(cuMemcpyHtoD(buf, in, bytes)) &&
              checkDriver(cuMemcpyDtoH(out, buf, bytes));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;
    return checkDriver(cuCtxDestroy(ctx)) && ok;
}
