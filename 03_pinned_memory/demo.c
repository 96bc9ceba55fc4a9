/* 03_pinned_memory/demo.c - the lesson in one short program: the same 64 MiB copied to the GPU
 * and back, from pageable memory (malloc) and from pinned memory (cudaMallocHost), each copy
 * timed with a pair of events (core.c's copy_ms), the data checked on the host. From this folder:
 *   nvcc -I../common -o demo demo.c core.c kernels.cu ../common/check.c ../common/driver_loader.c -ldl
 * The lesson's program (make run) measures the same with medians, sizes and claims. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core.h"
#include "pattern.h"

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    const size_t bytes = (size_t)64 << 20, words = bytes / 4;
    const char *name[2] = {"pageable (malloc)", "pinned (cudaMallocHost)"};
    const enum kind kinds[2] = {PAGEABLE, PINNED};
    void *host[2] = {NULL, NULL}, *dev = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    double rate[2][2] = {{0, 0}, {0, 0}}; /* [pageable, pinned][to the GPU, back] in GB/s */
    size_t wrong = 0;

    if (!requireRuntime(cudaSetDevice(0))) /* no usable GPU or driver: exit 77 with the reason */
        return EXIT_CHECK;
    bool ok = checkRuntime(cudaMalloc(&dev, bytes)) && checkRuntime(cudaStreamCreate(&s)) &&
              checkRuntime(cudaEventCreate(&start)) && checkRuntime(cudaEventCreate(&stop));
    for (int k = 0; ok && k < 2; k++) /* the one difference: where the host buffer comes from */
        ok = checkRuntime(host_alloc(kinds[k], bytes, &host[k]));

    for (int k = 0; ok && k < 2; k++) {
        uint32_t *h = host[k];
        for (size_t i = 0; i < words; i++) /* the same bytes from both kinds of memory */
            h[i] = pattern_word(i, 7);
        float ms[2] = {0, 0}, warm;
        ok = copy_ms(dev, h, bytes, cudaMemcpyHostToDevice, s, start, stop, &warm) && /* warm-up */
             copy_ms(dev, h, bytes, cudaMemcpyHostToDevice, s, start, stop, &ms[0]);
        memset(h, 0, bytes); /* so that only the copy back can bring the data home */
        ok = ok && copy_ms(h, dev, bytes, cudaMemcpyDeviceToHost, s, start, stop, &ms[1]);
        for (size_t i = 0; ok && i < words; i++)
            wrong += h[i] != pattern_word(i, 7);
        for (int d = 0; ok && d < 2; d++)
            rate[k][d] = (double)bytes / (ms[d] * 1e6);
        if (ok)
            printf("%-24s to the GPU %5.1f GB/s, back %5.1f GB/s\n", name[k], rate[k][0],
                   rate[k][1]);
    }
    for (int d = 0; ok && d < 2; d++)
        printf("%s: %s is faster, %.1fx\n", d ? "back" : "to the GPU",
               rate[1][d] > rate[0][d] ? "pinned" : "pageable",
               rate[1][d] > rate[0][d] ? rate[1][d] / rate[0][d] : rate[0][d] / rate[1][d]);
    if (ok)
        claim(wrong == 0, "the data came back intact from both (%zu wrong words of %zu)", wrong,
              2 * words);
    for (int k = 0; k < 2; k++)
        if (host[k])
            ok = checkRuntime(host_free(kinds[k], host[k])) && ok;
    if (stop)
        ok = checkRuntime(cudaEventDestroy(stop)) && ok;
    if (start)
        ok = checkRuntime(cudaEventDestroy(start)) && ok;
    if (s)
        ok = checkRuntime(cudaStreamDestroy(s)) && ok;
    if (dev)
        ok = checkRuntime(cudaFree(dev)) && ok;
    return verdict(ok);
}
