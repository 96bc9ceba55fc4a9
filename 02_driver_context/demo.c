/*
 * 02_driver_context/demo.c - the lesson in one short program: cuInit, a context of our own next
 * to the runtime's primary context, the context stack, and cudaMalloc landing in whichever
 * context is current, where the kernel then runs. Build it from this folder alone:
 *   nvcc -o demo demo.c kernel.cu -lcuda
 * Exit 0 when everything held, 1 when a call or a check failed, 77 when no GPU can be used.
 */
#include <stdint.h>
#include <stdlib.h>

#include "demo.h"

cudaError_t launch_add_one(unsigned int *data, int n); /* kernel.cu: add_one<<<>>> */

/* Steps 2 and 5: a context of our own (cuCtxCreate pushes it: current), popped; then the
 * runtime's, which cudaSetDevice makes current when none is, and the Driver API retains. */
static bool two_contexts(CUdevice dev, CUcontext *own, CUcontext *primary)
{
    CUcontext popped = NULL, current = NULL;
#if CUDA_VERSION >= 13000
    if (!checkDriver(cuCtxCreate(own, NULL, 0, dev))) /* CUDA 13: CUctxCreateParams *, flags */
#else
    if (!checkDriver(cuCtxCreate(own, 0, dev))) /* CUDA 12: flags, device */
#endif
        return false;
    if (!checkDriver(cuCtxPopCurrent(&popped)))
        return false;
    if (!checkRuntime(cudaSetDevice(0)))
        return false;
    if (!checkDriver(cuCtxGetCurrent(&current)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxRetain(primary, dev)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxRelease(dev))) /* the runtime keeps its own reference */
        return false;
    printf("cuCtxCreate -> %p; cudaSetDevice(0) -> current %p, cuDevicePrimaryCtxRetain %p\n",
           (void *)*own, (void *)current, (void *)*primary);
    return claim(popped == *own && current == *primary && *own != *primary,
                 "the created context is not the primary one; cudaSetDevice made the primary "
                 "one current");
}

/* Steps 4 and 5: the runtime in the current context: cudaMalloc's buffer is that context's
 * (the driver names the owner), and add_one<<<>>> runs there; then the buffer is freed. */
static bool runtime_in_current(unsigned int *host, int n, CUcontext *owner)
{
    unsigned int *data = NULL;
    size_t bytes = (size_t)n * sizeof *host;
    bool ok = false;
    if (!checkRuntime(cudaMalloc((void **)&data, bytes)))
        return false;
    if (!checkDriver(cuPointerGetAttribute(owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                           (CUdeviceptr)(uintptr_t)data)))
        goto done;
    if (!checkRuntime(cudaMemcpy(data, host, bytes, cudaMemcpyHostToDevice)))
        goto done;
    if (!checkRuntime(launch_add_one(data, n)))
        goto done;
    if (!checkRuntime(cudaDeviceSynchronize()))
        goto done;
    ok = checkRuntime(cudaMemcpy(host, data, bytes, cudaMemcpyDeviceToHost));
done:
    return checkRuntime(cudaFree(data)) && ok;
}

int main(void)
{
    enum { N = 1 << 20 };
    CUdevice dev;
    CUcontext own = NULL, primary = NULL, popped = NULL, in_own = NULL, in_primary = NULL;
    unsigned int *host = calloc(N, sizeof *host);
    int wrong = 0;
    bool ok = false;
    if (!checkDriver(cuInit(0)) || !host)
        goto done;
    if (!checkDriver(cuDeviceGet(&dev, 0)))
        goto done;
    if (!two_contexts(dev, &own, &primary))
        goto done;
    if (!checkDriver(cuCtxPushCurrent(own))) /* ours over the primary: the runtime works in it */
        goto done;
    if (!runtime_in_current(host, N, &in_own))
        goto done;
    if (!checkDriver(cuCtxPopCurrent(&popped))) /* the primary context is current again */
        goto done;
    ok = runtime_in_current(host, N, &in_primary);
    for (int i = 0; ok && i < N; i++)
        wrong += host[i] != 2u; /* add_one ran twice, once in each context */
    printf("cudaMalloc with ours pushed: owner %p; popped: owner %p; %d of %d words wrong\n",
           (void *)in_own, (void *)in_primary, wrong, N);
    claim(in_own == own, "with our context pushed, cudaMalloc's buffer belongs to ours");
    claim(popped == own && in_primary == primary,
          "popped, the runtime allocates in the primary context again");
    claim(ok && wrong == 0, "add_one<<<>>> ran in each context, every word checked");
done:
    if (!host)
        fprintf(stderr, "demo: out of host memory\n");
    ok = (!own || checkDriver(cuCtxDestroy(own))) && ok; /* the runtime keeps the primary */
    free(host);
    return verdict(ok);
}
