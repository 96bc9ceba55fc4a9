/* Wrong: pops ctxB to reach ctxA and never puts it back. */
#include "stack_order.h"
bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)a;
    (void)b;
    CUcontext popped;
    return checkDriver(cuCtxPopCurrent(&popped)) && checkDriver(cuMemAlloc(buf, bytes));
}
