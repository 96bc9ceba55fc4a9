/* Right, another way: a library's habit. The allocation is made with device 0's primary
 * context pushed for the call and popped after (cuCtxPushCurrent / cuCtxPopCurrent), whatever
 * the caller has current; PORTABLE makes the memory pinned for every context anyway. */
#include "driver_pinned.h"

void *alloc_host(size_t bytes)
{
    CUdevice dev;
    CUcontext ctx = NULL, popped = NULL;
    void *p = NULL;
    if (!checkDriver(cuDeviceGet(&dev, 0)) || !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
        return NULL;
    bool ok = checkDriver(cuCtxPushCurrent(ctx));
    if (ok) {
        ok = checkDriver(cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE));
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    }
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    if (!ok && p) {
        (void)checkDriver(cuMemFreeHost(p));
        p = NULL;
    }
    return p;
}

bool free_host(void *p)
{
    return checkDriver(cuMemFreeHost(p));
}
