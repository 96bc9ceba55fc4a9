/*
 * tests/common/04_streams_overlap/watch_probe.c - lesson 04's core.c and proof/watch.c linked as the program is
 * (--wrap=cudaMemcpyAsync --wrap=launch_work), over stand-ins for CUDA that print each call: so
 * a CPU test sees where the instrument's events fall among the pipelines' calls, in order.
 * usage: watch_probe per-stream|by-stage|legacy|sequential|unwatched CHUNKS
 * Prints one line per call: "H2D chunk", "K chunk", "D2H chunk", "memset", "event chunk mark"
 * (the chunk and mark the event is, read from the events' table) and "stream S" after each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

struct lesson L;
static float host_in[64], host_out[64], dev_in[64], dev_out[64];
static int counter;

static int chunk_of(const float *p, const float *base, const struct pipeline *q)
{
    for (int i = 0; i < q->streams; i++)
        if (p == base + chunk_first(q, i))
            return i;
    return -1;
}
static struct pipeline pipe_;

bool check_runtime_(cudaError_t err, const char *call, const char *file, int line)
{
    if (err)
        printf("check failed: %s (%s:%d)\n", call, file, line);
    return !err;
}
bool check_driver_(CUresult err, const char *call, const char *file, int line)
{
    return check_runtime_((cudaError_t)err, call, file, line);
}
/* CUDA's own calls, as watch.c's __real_ names reach them (the linker's --wrap) */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t s)
{
    (void)bytes;
    if (kind == cudaMemcpyHostToDevice)
        printf("H2D %d stream %d\n", chunk_of(dst, dev_in, &pipe_), (int)(intptr_t)s);
    else
        printf("D2H %d stream %d\n", chunk_of(src, dev_out, &pipe_), (int)(intptr_t)s);
    return cudaSuccess;
}
cudaError_t launch_work(const float *in, float *out, size_t n, int work, cudaStream_t s)
{
    (void)out, (void)n, (void)work;
    printf("K %d stream %d\n", chunk_of(in, dev_in, &pipe_), (int)(intptr_t)s);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    int at = (int)(intptr_t)e - 1; /* the events are numbered 1..: chunk * 4 + mark + 1 */
    printf("event %d %d stream %d\n", at / 4, at % 4, (int)(intptr_t)s);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t b, cudaStream_t s)
{
    (void)d, (void)v, (void)b;
    printf("memset stream %d\n", (int)(intptr_t)s);
    return cudaSuccess;
}
/* what else core.c calls: never reached here */
cudaError_t cudaMallocHost(void **p, size_t b)
{
    return (void)p, (void)b, cudaErrorUnknown;
}
cudaError_t cudaMalloc(void **p, size_t b)
{
    return (void)p, (void)b, cudaErrorUnknown;
}
cudaError_t cudaFree(void *p)
{
    return (void)p, cudaErrorUnknown;
}
cudaError_t cudaFreeHost(void *p)
{
    return (void)p, cudaErrorUnknown;
}
cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    return (void)s, cudaErrorUnknown;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
    return (void)s, (void)f, cudaErrorUnknown;
}
cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    return (void)s, cudaErrorUnknown;
}
CUresult cuStreamCreate(CUstream *s, unsigned f)
{
    return (void)s, (void)f, CUDA_ERROR_UNKNOWN;
}
CUresult cuStreamDestroy_v2(CUstream s)
{
    return (void)s, CUDA_ERROR_UNKNOWN;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t b, CUstream s)
{
    return (void)d, (void)h, (void)b, (void)s, CUDA_ERROR_UNKNOWN;
}
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t b, CUstream s)
{
    return (void)d, (void)h, (void)b, (void)s, CUDA_ERROR_UNKNOWN;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e)
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)sh, (void)s;
    return (void)p, (void)e, CUDA_ERROR_UNKNOWN;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *how = argv[1];
    int chunks = atoi(argv[2]);
    static cudaStream_t streams[MAX_STREAMS];
    for (int i = 0; i < MAX_STREAMS; i++)
        streams[i] = (cudaStream_t)(intptr_t)(i + 1); /* stream i is "i + 1"; 0 the legacy one */
    for (int c = 0; c < MAX_STREAMS; c++)
        for (int m = 0; m < OPS + 1; m++)
            L.ev.at[c][m] = (cudaEvent_t)(intptr_t)(c * 4 + m + 1);
    pipe_ = (struct pipeline){.streams = chunks,
                              .n = 64,
                              .work = 1,
                              .host_in = host_in,
                              .host_out = host_out,
                              .dev_in = dev_in,
                              .dev_out = dev_out,
                              .dev_counter = strcmp(how, "legacy") ? NULL : &counter,
                              .stream = streams};
    bool ok;
    if (strcmp(how, "unwatched") == 0)
        return pipeline_per_stream(&pipe_) ? 0 : 1;
    watch_begin(&L.ev);
    if (strcmp(how, "sequential") == 0) {
        pipe_.streams = 1;
        ok = pipeline_sequential(&pipe_);
    } else
        ok = strcmp(how, "by-stage") ? pipeline_per_stream(&pipe_) : pipeline_by_stage(&pipe_);
    ok = watch_end() && ok;
    return ok ? 0 : 1;
}
