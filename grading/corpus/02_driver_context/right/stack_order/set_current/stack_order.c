/* Right, another way: cuCtxSetCurrent replaces the top entry, twice. */
#include "stack_order.h"
bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    if (!checkDriver(cuCtxSetCurrent(a))) /* [ctxA ctxB] -> [ctxA ctxA] */
        return false;
    bool ok = checkDriver(cuMemAlloc(buf, bytes));
    return checkDriver(cuCtxSetCurrent(b)) && ok; /* -> [ctxA ctxB] */
}
