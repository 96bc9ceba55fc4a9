/*
 * Exercise 1 - stack_order: steer an allocation into the right context with the stack.
 *
 * This file is yours (the only one graded). The harness (harness/stack_order/) creates ctxA,
 * then ctxB. cuCtxCreate pushes each new context, so the stack is [ctxA ctxB] and ctxB is
 * current when it calls allocate_in_a(). The buffer must belong to ctxA, and afterwards the
 * stack must be [ctxA ctxB] again, exactly as before (ctxB on top, ctxA below it). The harness
 * asks the driver which context owns the buffer and reads the whole stack.
 * As given, the buffer lands in ctxB. Fix it:
 * FIXME 1: make ctxA current, keeping ctxB alive (do not destroy it). Check the call.
 * FIXME 2: put ctxB back on top of ctxA. Check the call.
 * Think about what each call does to the stack: cuCtxPushCurrent adds an entry on top,
 * cuCtxPopCurrent removes the top one, cuCtxSetCurrent replaces the top one. More than one
 * pair of calls works; a pair that leaves an extra entry, or one too few, does not.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "stack_order.h"

bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)a;
    (void)b;
    /* FIXME 1 goes here. */

    if (!checkDriver(cuMemAlloc(buf, bytes)))
        return false;

    /* FIXME 2 goes here. */
    return true;
}
