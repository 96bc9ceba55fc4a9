/* second_alloc: a variant for the grader's tests (a first buffer, too small, is left behind
 * when the right one is made). */
#include "stack_order.h"

bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)a;
    CUcontext popped = NULL;
    CUdeviceptr first = 0;
    if (!checkDriver(cuCtxPopCurrent(&popped))) /* [ctxA ctxB] -> [ctxA] */
        return false;
    bool ok = checkDriver(cuMemAlloc(&first, 256)) && checkDriver(cuMemAlloc(buf, bytes));
    return checkDriver(cuCtxPushCurrent(b)) && ok; /* first is never freed */
}
