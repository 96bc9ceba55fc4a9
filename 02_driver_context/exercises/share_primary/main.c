/*
 * Exercise 2 - share_primary: a Driver API library that shares the runtime's context.
 *
 * The application uses the runtime (cudaSetDevice, cudaMalloc). A small "library" written
 * with the Driver API allocates a buffer, fills it, and hands it to the application, which
 * reads it after the library has finished. As given, the library makes a context of its own
 * with cuCtxCreate: its buffer lives in a context the runtime never uses, and destroying that
 * context at the end frees the buffer under the application's feet.
 * TODO 1 (library_begin): work in the device's primary context, the one the runtime uses:
 *        retain it (cuDevicePrimaryCtxRetain) and make it current (cuCtxPushCurrent).
 * TODO 2 (library_end): undo library_begin in reverse order: pop the context, then release
 *        it (a retained primary context is released, never destroyed).
 * Check every call. Grade it: make check   (from 02_driver_context/)
 */
#include <stdint.h>
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

enum { WORDS = 1024 };

static bool create(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

/* ---- the library ------------------------------------------------------------------------ */

/* Makes a context current for the library's work and returns it in *ctx. */
static bool library_begin(CUdevice dev, CUcontext *ctx)
{
    /* TODO 1: replace this line. */
    return create(ctx, dev);
}

/* Ends the library's use of ctx; the context below it becomes current again. */
static bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)dev;
    /* TODO 2: replace this line. */
    return checkDriver(cuCtxDestroy(ctx));
}

/* Allocates WORDS words in the current context, sets each to 7, returns the buffer. */
static bool library_make_buffer(CUdeviceptr *buf)
{
    return checkDriver(cuMemAlloc(buf, WORDS * sizeof(unsigned int))) &&
           checkDriver(cuMemsetD32(*buf, 7u, WORDS));
}

/* ---- the application -------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    bool ok = true;
    CUdevice dev;
    CUcontext app_ctx = NULL, lib_ctx = NULL, owner = NULL;
    CUdeviceptr lib_buf = 0;
    unsigned int host[WORDS] = {0};
    if (!requireRuntime(cudaSetDevice(0)) || !checkDriver(cuCtxGetCurrent(&app_ctx)) ||
        !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;

    if (!library_begin(dev, &lib_ctx))
        return EXIT_CHECK;
    bool made = library_make_buffer(&lib_buf) &&
                checkDriver(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, lib_buf));
    if (!library_end(dev, lib_ctx) || !made)
        return EXIT_CHECK;

    printf("library context is the runtime's: %s\n", lib_ctx == app_ctx ? "yes" : "no");
    printf("library buffer belongs to the runtime's context: %s\n", owner == app_ctx ? "yes" : "no");
    /* Is the buffer still there now that the library has finished? */
    CUcontext still = NULL;
    bool valid = cuPointerGetAttribute(&still, CU_POINTER_ATTRIBUTE_CONTEXT, lib_buf) == CUDA_SUCCESS;
    printf("library buffer still valid after the library finished: %s\n", valid ? "yes" : "no");
    if (!valid)
        return EXIT_OK; /* its context is gone, and the buffer with it */

    void *p = (void *)(uintptr_t)lib_buf;
    if (!checkRuntime(cudaMemcpy(host, p, sizeof host, cudaMemcpyDeviceToHost)))
        ok = false;
    int right = 0;
    for (int i = 0; i < WORDS; i++)
        right += host[i] == 7u;
    if (ok)
        printf("application read the library's data: %d of %d words right\n", right, WORDS);
    ok = checkRuntime(cudaFree(p)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
