/*
 * Exercise 2 - share_primary: a Driver API library that shares the runtime's context.
 *
 * This file is yours (the only one graded): a small "library" written with the Driver API.
 * The harness (harness/share_primary/) plays the application, which uses the runtime
 * (cudaSetDevice, cudaMemcpy): it calls library_begin(), allocates a buffer in the current
 * context and fills it (the library's work), calls library_end(), and then reads the buffer
 * with the runtime. As given, the library makes a context of its own with cuCtxCreate: its
 * buffer lives in a context the runtime never uses, and destroying that context at the end
 * frees the buffer under the application's feet.
 * FIXME 1 (library_begin): work in the device's primary context, the one the runtime uses:
 *        retain it (cuDevicePrimaryCtxRetain) and make it current (cuCtxPushCurrent).
 * FIXME 2 (library_end): undo library_begin in reverse order: pop the context, then release
 *        it (a retained primary context is released, never destroyed).
 * Check every call. The harness checks the library's context is the runtime's, the stack is
 * as the application left it, the data arrives, and no reference is left behind.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "share_primary.h"

bool library_begin(CUdevice dev, CUcontext *ctx)
{
    /* FIXME 1: replace this call. */
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)dev;
    /* FIXME 2: replace this line. */
    return checkDriver(cuCtxDestroy(ctx));
}
