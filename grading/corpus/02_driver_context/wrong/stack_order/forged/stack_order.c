/* Wrong: prints what the grader used to look for; the buffer lands in ctxB. */
#include <stdio.h>
#include "stack_order.h"
bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)a;
    (void)b;
    printf("buffer belongs to: ctxA\nstack at the end (top first): ctxB, ctxA, none\n");
    return checkDriver(cuMemAlloc(buf, bytes));
}
