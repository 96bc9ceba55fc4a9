/*
 * Reference solution of exercise 2 - both_ways: the device-to-host copy goes into a second
 * stream that starts at `start`; the first stream waits for its end before `stop`.
 * Grade it: make check   (from 03_pinned_memory/)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"

#define BYTES ((size_t)256 << 20)
#define WORDS (BYTES / 4)

/* The time between two events; each measurement keeps its best of several runs, so that one
 * hiccup of the machine does not decide the grade. */
static float elapsed(cudaEvent_t a, cudaEvent_t b, float best)
{
    float ms = 0;
    if (!checkRuntime(cudaEventElapsedTime(&ms, a, b)))
        return -1;
    return best > 0 && best < ms ? best : ms;
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return EXIT_CHECK;
    bool ok = true;
    uint32_t *up = NULL, *down = NULL, *dev_in = NULL, *dev_out = NULL;
    cudaStream_t s1 = NULL, s2 = NULL;
    cudaEvent_t start = NULL, stop = NULL, stop2 = NULL;
    if (!checkRuntime(cudaSetDevice(0)) || !checkRuntime(cudaStreamCreate(&s1)) ||
        !checkRuntime(cudaStreamCreate(&s2)) || !checkRuntime(cudaEventCreate(&stop2)) ||
        !checkRuntime(cudaEventCreate(&start)) || !checkRuntime(cudaEventCreate(&stop)) ||
        !checkRuntime(cudaMallocHost((void **)&up, BYTES)) ||
        !checkRuntime(cudaMallocHost((void **)&down, BYTES)) ||
        !checkRuntime(cudaMalloc((void **)&dev_in, BYTES)) ||
        !checkRuntime(cudaMalloc((void **)&dev_out, BYTES))) {
        ok = false;
        goto cleanup;
    }
    for (size_t i = 0; i < WORDS; i++) {
        up[i] = (uint32_t)i * 7u;
        down[i] = (uint32_t)i * 13u; /* goes to dev_out, then comes back */
    }
    if (!checkRuntime(cudaMemcpy(dev_out, down, BYTES, cudaMemcpyHostToDevice))) {
        ok = false;
        goto cleanup;
    }
    memset(down, 0, BYTES);

    /* One direction at a time, five times each. */
    float h2d = 0, d2h = 0, both = 0;
    for (int r = 0; r < 5; r++) {
        if (!checkRuntime(cudaEventRecord(start, s1)) ||
            !checkRuntime(cudaMemcpyAsync(dev_in, up, BYTES, cudaMemcpyHostToDevice, s1)) ||
            !checkRuntime(cudaEventRecord(stop, s1)) || !checkRuntime(cudaEventSynchronize(stop)) ||
            (h2d = elapsed(start, stop, h2d)) < 0 || !checkRuntime(cudaEventRecord(start, s1)) ||
            !checkRuntime(cudaMemcpyAsync(down, dev_out, BYTES, cudaMemcpyDeviceToHost, s1)) ||
            !checkRuntime(cudaEventRecord(stop, s1)) || !checkRuntime(cudaEventSynchronize(stop)) ||
            (d2h = elapsed(start, stop, d2h)) < 0) {
            ok = false;
            goto cleanup;
        }
    }

    /* Both directions, one stream each. */
    for (int r = 0; r < 5; r++) {
        if (!checkRuntime(cudaEventRecord(start, s1)) ||
            !checkRuntime(cudaStreamWaitEvent(s2, start, 0)) ||
            !checkRuntime(cudaMemcpyAsync(dev_in, up, BYTES, cudaMemcpyHostToDevice, s1)) ||
            !checkRuntime(cudaMemcpyAsync(down, dev_out, BYTES, cudaMemcpyDeviceToHost, s2)) ||
            !checkRuntime(cudaEventRecord(stop2, s2)) ||
            !checkRuntime(cudaStreamWaitEvent(s1, stop2, 0)) ||
            !checkRuntime(cudaEventRecord(stop, s1)) || !checkRuntime(cudaEventSynchronize(stop)) ||
            (both = elapsed(start, stop, both)) < 0) {
            ok = false;
            goto cleanup;
        }
    }

    /* Check both copies: dev_in against up (through `up` itself, after clearing it), down on the host. */
    memset(up, 0, BYTES);
    if (!checkRuntime(cudaMemcpy(up, dev_in, BYTES, cudaMemcpyDeviceToHost))) {
        ok = false;
        goto cleanup;
    }
    size_t wrong = 0;
    for (size_t i = 0; i < WORDS; i++)
        wrong += (up[i] != (uint32_t)i * 7u) + (down[i] != (uint32_t)i * 13u);
    double one = (double)BYTES / (1e6 * (h2d < d2h ? h2d : d2h));
    double two = 2.0 * (double)BYTES / (1e6 * both);
    printf("one direction: %.1f GB/s\n", one);
    printf("both at once: %.1f GB/s in total, %.2fx one direction\n", two, two / one);
    printf("wrong words: %zu\n", wrong);
cleanup:
    if (up)
        ok = checkRuntime(cudaFreeHost(up)) && ok;
    if (down)
        ok = checkRuntime(cudaFreeHost(down)) && ok;
    if (dev_in)
        ok = checkRuntime(cudaFree(dev_in)) && ok;
    if (dev_out)
        ok = checkRuntime(cudaFree(dev_out)) && ok;
    if (start)
        ok = checkRuntime(cudaEventDestroy(start)) && ok;
    if (stop)
        ok = checkRuntime(cudaEventDestroy(stop)) && ok;
    if (stop2)
        ok = checkRuntime(cudaEventDestroy(stop2)) && ok;
    if (s1)
        ok = checkRuntime(cudaStreamDestroy(s1)) && ok;
    if (s2)
        ok = checkRuntime(cudaStreamDestroy(s2)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
