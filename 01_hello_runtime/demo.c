/*
 * 01_hello_runtime/demo.c - the lesson on one page: no context before the first runtime call,
 * none after cudaGetDeviceCount, the device's primary context current after cudaSetDevice (the
 * very context cuDevicePrimaryCtxRetain hands out), then a kernel launched from C, its launch
 * and its run checked, its result verified on the host. Build it from this folder alone:
 *   nvcc -o demo demo.c kernel.cu -lcuda
 * Exit status: 0 every check passed, 1 one failed, 77 no usable GPU or driver here.
 */
#include <stdint.h>
#include <stdlib.h>

#include "demo.h"

void launch_add_one(float *data, int n, int threads_per_block); /* kernel.cu: add_one<<<>>> */

/* Steps 1-3: which context is current, before and after the runtime's first calls. */
static bool contexts(void)
{
    CUcontext ctx = (CUcontext)(uintptr_t)0x5eed, primary = NULL; /* a marker: was ctx written? */
    CUdevice dev;
    unsigned int flags;
    int count = 0, active = -1;
    CUresult before = cuCtxGetCurrent(&ctx);       /* 1. no CUDA call yet */
    if (!checkRuntime(cudaGetDeviceCount(&count))) /* 2. the runtime's first call */
        return false;
    printf("before any CUDA call:     cuCtxGetCurrent -> %s\n",
           before == CUDA_ERROR_NOT_INITIALIZED ? "CUDA_ERROR_NOT_INITIALIZED" : "another result");
    claim(before == CUDA_ERROR_NOT_INITIALIZED && ctx == (CUcontext)(uintptr_t)0x5eed,
          "no context before the first CUDA call");
    if (!checkDriver(cuCtxGetCurrent(&ctx)))
        return false;
    if (!checkDriver(cuDeviceGet(&dev, 0)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)))
        return false;
    printf("after cudaGetDeviceCount: %d device(s), current context %s, primary active = %d\n",
           count, ctx ? "not NULL" : "NULL", active);
    claim(!ctx && !active, "cudaGetDeviceCount initialised the driver and made no context");
    if (!checkRuntime(cudaSetDevice(0))) /* 3. the first call that needs a context */
        return false;
    if (!checkDriver(cuCtxGetCurrent(&ctx)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxRetain(&primary, dev)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxRelease(dev)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)))
        return false;
    printf("after cudaSetDevice(0):   current %p, cuDevicePrimaryCtxRetain %p, active = %d\n",
           (void *)ctx, (void *)primary, active);
    return claim(ctx && ctx == primary && active == 1,
                 "cudaSetDevice made the device's primary context current");
}

/* Step 6: a kernel launched from C; the launch is checked at once, its run at synchronisation. */
static bool add_one(float *host, int n)
{
    float *data = NULL;
    size_t bytes = (size_t)n * sizeof *host;
    bool ok = false;
    if (!checkRuntime(cudaMalloc((void **)&data, bytes)))
        return false;
    if (!checkRuntime(cudaMemcpy(data, host, bytes, cudaMemcpyHostToDevice)))
        goto done;
    launch_add_one(data, n, 256);
    if (!checkRuntime(cudaGetLastError())) /* the launch: a bad configuration shows here */
        goto done;
    if (!checkRuntime(cudaDeviceSynchronize())) /* the kernel's run: a fault shows here */
        goto done;
    ok = checkRuntime(cudaMemcpy(host, data, bytes, cudaMemcpyDeviceToHost));
done:
    return checkRuntime(cudaFree(data)) && ok;
}

int main(void)
{
    enum { N = 1 << 20 };
    float *host = malloc(N * sizeof *host);
    int wrong = 0;
    bool ok = host && contexts();
    for (int i = 0; ok && i < N; i++)
        host[i] = (float)i;
    ok = ok && add_one(host, N);
    for (int i = 0; ok && i < N; i++)
        wrong += host[i] != (float)i + 1.0f;
    if (ok)
        printf("add_one<<<%d, 256>>>:     %d floats, %d wrong\n", N / 256, N, wrong);
    if (ok)
        claim(wrong == 0, "the kernel added one to every element");
    if (!host)
        fprintf(stderr, "demo: out of host memory\n");
    free(host);
    return verdict(ok);
}
