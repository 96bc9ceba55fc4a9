/* 04_streams_overlap/demo.c - the idea in one page: pinned buffers, 8 streams, chunk i's copy
 * in, kernel and copy out in stream i (core.c's loop), wait, check the result on the host, and
 * the time against the same work in sequence. Build it by hand from this folder (README.md):
 *   nvcc -I. -I../common -o demo demo.c core.c kernel.cu ../common/check.c ../common/driver_loader.c -ldl
 * Exit 0 right, 1 a CUDA call or the check failed, 77 no GPU here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "work.h"

enum { N = 1 << 24, STREAMS = 8, WORK = 2000 }; /* 64 MiB each way; the kernel about a copy */

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count))) /* no GPU or driver here: exits 77 */
        return EXIT_CHECK;
    cudaStream_t stream[STREAMS] = {0};
    struct pipeline p = {.streams = STREAMS, .n = N, .work = WORK, .stream = stream};
    bool ok = buffers_alloc(&p); /* pinned host memory: the copy engines can DMA it */
    printf("1. pinned buffers: 2 x %d MiB with cudaMallocHost, 2 on the device; the GPU has %d\n"
           "   copy engine(s) (asyncEngineCount)\n",
           (int)(N * sizeof(float) >> 20), ok ? copy_engines() : -1);
    for (size_t i = 0; ok && i < N; i++)
        p.host_in[i] = work_input(i);

    float t_seq = 0, t_streams = 0; /* a warm-up first: the kernel's module loads at its launch */
    ok = ok && pipeline_sequential(&p, NULL) && checkRuntime(cudaDeviceSynchronize());
    ok = ok && time_on_gpu(pipeline_sequential, &p, &t_seq); /* one chunk, legacy stream */
    printf("2. in sequence, one stream: copy in, kernel, copy out: %.2f ms\n", t_seq);
    float *ref = malloc(N * sizeof(float)); /* the sequential result, to compare */
    ok = ok && ref && memcpy(ref, p.host_out, N * sizeof(float));

    ok = ok && streams_create(stream, STREAMS, BLOCKING);
    if (ok)
        memset(p.host_out, 0xff, N * sizeof(float)); /* poison: a chunk not copied back shows */
    ok = ok && time_on_gpu(pipeline_per_stream, &p, &t_streams); /* the loop of core.c */
    ok = ok && checkRuntime(cudaDeviceSynchronize());            /* wait: every stream done */
    printf("3. %d chunks in %d streams, per stream: %.2f ms\n", STREAMS, STREAMS, t_streams);

    size_t wrong = ok ? 0 : N, sampled = 0;
    for (size_t i = 0; ok && i < N; i += 1021, sampled++) { /* the host's fmaf, bit for bit */
        float want = work_on_host(work_input(i), WORK);
        wrong += memcmp(&want, &ref[i], sizeof want) != 0;
    }
    bool same = ok && memcmp(p.host_out, ref, N * sizeof(float)) == 0;
    printf("4. checked on the host: %zu of %zu sampled elements differ; the streams' result is\n"
           "   %s the sequential one\n",
           wrong, sampled, same ? "identical to" : "NOT");
    if (ok && t_streams > 0)
        printf("5. %.2fx the sequential speed%s\n", t_seq / t_streams,
               t_seq > t_streams ? ": copies and kernels of different streams overlapped" : "");

    ok = streams_destroy(stream, STREAMS, BLOCKING) && ok;
    ok = buffers_free(&p) && ok;
    free(ref);
    ok = ok && wrong == 0 && same;
    printf("RESULT: %s\n", ok ? "PASS" : "FAIL");
    return ok ? EXIT_OK : EXIT_CHECK;
}
