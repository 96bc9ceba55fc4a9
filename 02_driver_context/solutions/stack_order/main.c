/*
 * Reference solution of exercise 1 - stack_order.
 *
 * main() creates ctxA, then ctxB. cuCtxCreate pushes each new context, so the stack is
 * [ctxA ctxB] and ctxB is current. The buffer below must belong to ctxA, and afterwards the
 * stack must be [ctxA ctxB] again, exactly as before (ctxB on top, ctxA below it).
 * As given, the buffer lands in ctxB. Fix it:
 * TODO 1: make ctxA current, keeping ctxB alive (do not destroy it). Check the call.
 * TODO 2: put ctxB back on top of ctxA. Check the call.
 * Think about what each call does to the stack: cuCtxPushCurrent adds an entry on top,
 * cuCtxPopCurrent removes the top one, cuCtxSetCurrent replaces the top one. More than one
 * pair of calls works; a pair that leaves an extra entry, or one too few, does not.
 * Grade it: make check   (from 02_driver_context/)
 */
#include <stdio.h>

#include <cuda.h>

#include "check.h"

static const char *name(CUcontext c, CUcontext a, CUcontext b)
{
    return !c ? "none" : c == a ? "ctxA" : c == b ? "ctxB" : "another context";
}

static bool create(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    bool ok = true;
    CUdevice dev;
    CUcontext a = NULL, b = NULL, owner = NULL, popped = NULL;
    CUdeviceptr buf = 0;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;
    if (!create(&a, dev) || !create(&b, dev)) {
        ok = false;
        goto cleanup;
    }

    if (!checkDriver(cuCtxPopCurrent(&popped))) { /* [ctxA ctxB] -> [ctxA] */
        ok = false;
        goto cleanup;
    }

    if (!checkDriver(cuMemAlloc(&buf, 4096)) ||
        !checkDriver(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, buf)) ||
        !checkDriver(cuMemFree(buf))) {
        ok = false;
        goto cleanup;
    }

    if (!checkDriver(cuCtxPushCurrent(b))) { /* [ctxA] -> [ctxA ctxB] */
        ok = false;
        goto cleanup;
    }

    printf("buffer belongs to: %s\n", name(owner, a, b));
    /* Read the stack from the top by popping it empty. */
    CUcontext seen[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!checkDriver(cuCtxGetCurrent(&seen[i]))) {
            ok = false;
            goto cleanup;
        }
        if (!seen[i] || !checkDriver(cuCtxPopCurrent(&popped)))
            break;
    }
    printf("stack at the end (top first): %s, %s, %s\n", name(seen[0], a, b),
           name(seen[1], a, b), name(seen[2], a, b));

cleanup:
    if (b)
        ok = checkDriver(cuCtxDestroy(b)) && ok;
    if (a)
        ok = checkDriver(cuCtxDestroy(a)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
