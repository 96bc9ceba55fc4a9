/* Wrong: pushes ctxA on top and leaves it there: [ctxA ctxB ctxA]. */
#include "stack_order.h"
bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)b;
    return checkDriver(cuCtxPushCurrent(a)) && checkDriver(cuMemAlloc(buf, bytes));
}
