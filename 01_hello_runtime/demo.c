/*
 * 01_hello_runtime/demo.c - the lesson on one page: no context before the first runtime call,
 * the device's primary context current after it (the very context cuDevicePrimaryCtxRetain
 * hands out), then a kernel launched from C, checked, its result verified on the host.
 * Build it by hand from this folder (README.md, "The code"):
 *   nvcc -I../common -o demo demo.c core.c kernel.cu ../common/check.c ../common/driver_loader.c
 * Exit status: 0 every check passed, 1 one failed, 77 no usable GPU or driver here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "core.h"

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    struct context_view before, counted, set;
    int count = 0, device = 0;
    CUcontext retained = NULL;

    /* 1. Before any CUDA call: the driver is not initialised, no context can be current. */
    CUresult r = before_any_call(&before);
    if (r != CUDA_ERROR_NOT_INITIALIZED) { /* no driver library, the stub ...: exit 77 */
        requireDriver(r);
        return EXIT_CHECK;
    }
    printf("before any CUDA call:        cuCtxGetCurrent -> CUDA_ERROR_NOT_INITIALIZED\n");
    claim(before.current == CONTEXT_MARKER, "no context before the first CUDA call");

    /* 2. The runtime's first call initialises the driver and makes no context. */
    if (!requireRuntime(after_first_runtime_call(device, &count, &counted)) || !counted.seen)
        return EXIT_CHECK;
    printf("after cudaGetDeviceCount:    %d device(s), current context %s, primary active = %d\n",
           count, counted.current ? "not NULL" : "NULL", counted.active);
    claim(counted.current == NULL && counted.active == 0,
          "cudaGetDeviceCount initialised the driver and made no context");

    /* 3. The first call that needs a context makes the primary context current. */
    if (!requireRuntime(after_first_call_that_needs_a_context(device, &set, &retained)) ||
        !set.seen)
        return EXIT_CHECK;
    printf("after cudaSetDevice(%d):      current %p, cuDevicePrimaryCtxRetain %p (%.1f ms)\n",
           device, (void *)set.current, (void *)retained, set.call_ms);
    claim(set.current != NULL && set.current == retained && set.active == 1,
          "cudaSetDevice made the device's primary context current");

    /* 4. A kernel launched from C (kernel.cu's launcher), checked, verified on the host. */
    enum { N = 1 << 20 };
    float *host = malloc(N * sizeof *host);
    if (!host) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return EXIT_CHECK;
    }
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    bool launched = add_one_on_device(host, N, 256);
    int wrong = 0;
    for (int i = 0; launched && i < N; i++)
        wrong += host[i] != (float)i + 1.0f;
    free(host);
    if (launched)
        printf("add_one<<<%d, 256>>>:        %d floats, %d wrong\n", N / 256, N, wrong);
    claim(launched && wrong == 0, "the kernel added one to every element");
    return verdict(launched);
}
