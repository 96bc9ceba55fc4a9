/*
 * Reference solution of exercise 1 - stack_order.
 */
#include "stack_order.h"

bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)a;
    CUcontext popped = NULL;
    if (!checkDriver(cuCtxPopCurrent(&popped))) /* [ctxA ctxB] -> [ctxA] */
        return false;
    bool ok = checkDriver(cuMemAlloc(buf, bytes));
    return checkDriver(cuCtxPushCurrent(b)) && ok; /* [ctxA] -> [ctxA ctxB] */
}
