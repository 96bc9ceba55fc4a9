/*
 * 04_streams_overlap/harness/observe.c - the calls of pipeline.c the harness counts and checks
 * (linked with --wrap=NAME for the names harness/EXERCISE.wrap lists; a name not listed leaves
 * its wrapper unused and its weak __real_ unresolved, which is harmless).
 *   - every runtime copy's cudaMemcpyKind against its pointers' memory types
 *     (cudaPointerGetAttributes): the Runtime API makes a kind that does not match the pointers
 *     undefined behaviour, even where unified addressing happens to copy the right way;
 *   - the copies of each API (exercise "driver" must use the Driver API's: cuMemcpyHtoDAsync,
 *     cuMemcpyDtoHAsync or cuMemcpyAsync, the unified one, all count);
 *   - the library's memsets in the legacy default stream (exercises "legacy" and "driver");
 *   - the streams created (exercise_create_streams must make n, not more).
 */
#include <stdbool.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "observe.h"

struct observed harness_observed;

/* Where p's memory is, as the runtime sees it: 1 the device's, 0 the host's (page-locked,
 * registered or pageable), -1 either (managed memory, or unknown). */
static int on_device(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice ? 1 : a.type == cudaMemoryTypeManaged ? -1 : 0;
}

/* A copy from src to dst of kind k, checked while pipeline.c runs: cudaMemcpyDefault is always
 * right (the runtime reads the pointers); any other kind names where each side is. */
static void check_kind(void *dst, const void *src, enum cudaMemcpyKind k)
{
    if (!harness_observed.counting || k == cudaMemcpyDefault)
        return;
    int from_dev = k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice;
    int to_dev = k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice;
    int s = on_device(src), d = on_device(dst);
    harness_observed.kinds_checked++;
    harness_observed.kinds_wrong += (s >= 0 && s != from_dev) || (d >= 0 && d != to_dev);
}

CUresult __real_cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t b, CUstream s)
    __attribute__((weak));
CUresult __real_cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t b, CUstream s)
    __attribute__((weak));
CUresult __real_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t b, CUstream s)
    __attribute__((weak));
cudaError_t __real_cudaMemcpyAsync(void *dst, const void *src, size_t b, enum cudaMemcpyKind k,
                                   cudaStream_t s) __attribute__((weak));
cudaError_t __real_cudaMemcpy(void *dst, const void *src, size_t b, enum cudaMemcpyKind k)
    __attribute__((weak));
cudaError_t __real_cudaMemsetAsync(void *d, int v, size_t b, cudaStream_t s) __attribute__((weak));

CUresult __wrap_cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t b, CUstream s)
{
    harness_observed.driver_copies += harness_observed.counting;
    return __real_cuMemcpyHtoDAsync_v2(d, h, b, s);
}
CUresult __wrap_cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t b, CUstream s)
{
    harness_observed.driver_copies += harness_observed.counting;
    return __real_cuMemcpyDtoHAsync_v2(h, d, b, s);
}
CUresult __wrap_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t b, CUstream s)
{
    harness_observed.driver_copies += harness_observed.counting;
    return __real_cuMemcpyAsync(dst, src, b, s);
}
cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t b, enum cudaMemcpyKind k,
                                   cudaStream_t s)
{
    harness_observed.runtime_copies += harness_observed.counting;
    check_kind(dst, src, k);
    return __real_cudaMemcpyAsync(dst, src, b, k, s);
}
cudaError_t __wrap_cudaMemcpy(void *dst, const void *src, size_t b, enum cudaMemcpyKind k)
{
    check_kind(dst, src, k);
    return __real_cudaMemcpy(dst, src, b, k);
}
cudaError_t __wrap_cudaMemsetAsync(void *d, int v, size_t b, cudaStream_t s)
{
    cudaError_t e = __real_cudaMemsetAsync(d, v, b, s);
    harness_observed.legacy_memsets +=
        harness_observed.counting && e == cudaSuccess && (s == 0 || s == cudaStreamLegacy);
    return e;
}

/* Streams made: each creation that succeeded while pipeline.c runs. */
cudaError_t __real_cudaStreamCreate(cudaStream_t *s) __attribute__((weak));
cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) __attribute__((weak));
cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t *s, unsigned f, int p)
    __attribute__((weak));
CUresult __real_cuStreamCreate(CUstream *s, unsigned f) __attribute__((weak));
CUresult __real_cuStreamCreateWithPriority(CUstream *s, unsigned f, int p) __attribute__((weak));

static void made(bool ok)
{
    harness_observed.streams_made += harness_observed.counting && ok;
}
cudaError_t __wrap_cudaStreamCreate(cudaStream_t *s)
{
    cudaError_t e = __real_cudaStreamCreate(s);
    made(e == cudaSuccess);
    return e;
}
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
    cudaError_t e = __real_cudaStreamCreateWithFlags(s, f);
    made(e == cudaSuccess);
    return e;
}
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t *s, unsigned f, int p)
{
    cudaError_t e = __real_cudaStreamCreateWithPriority(s, f, p);
    made(e == cudaSuccess);
    return e;
}
CUresult __wrap_cuStreamCreate(CUstream *s, unsigned f)
{
    CUresult r = __real_cuStreamCreate(s, f);
    made(r == CUDA_SUCCESS);
    return r;
}
CUresult __wrap_cuStreamCreateWithPriority(CUstream *s, unsigned f, int p)
{
    CUresult r = __real_cuStreamCreateWithPriority(s, f, p);
    made(r == CUDA_SUCCESS);
    return r;
}
