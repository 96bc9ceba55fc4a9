/*
 * Exercise 2 - both_ways: copy to the device and back at the same time.
 *
 * The program copies 256 MiB host-to-device and another 256 MiB device-to-host, from pinned
 * memory. As given, both copies go into ONE stream, so the second waits for the first and
 * the pair is no faster than one direction. A PCIe link carries both directions at full
 * speed at once, and the GPU has separate copy engines for them (step 6 of the lesson):
 *   TODO: create a second stream and issue the device-to-host copy there, so that the two
 *         copies overlap. Keep the timing honest: the second stream must wait for `start`
 *         before its copy (cudaStreamWaitEvent), and `stop` must be recorded after BOTH
 *         copies (record an event in the second stream and make the first wait for it).
 *         Destroy what you create.
 * Then "both at once" gains at least 3/4 of what the reference solution gains on this card
 * (the grader runs it beside yours), with the data still intact.
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
    cudaStream_t s1 = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    if (!checkRuntime(cudaSetDevice(0)) || !checkRuntime(cudaStreamCreate(&s1)) ||
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

    /* Both directions: the part to change. */
    for (int r = 0; r < 5; r++) {
        if (!checkRuntime(cudaEventRecord(start, s1)) ||
            !checkRuntime(cudaMemcpyAsync(dev_in, up, BYTES, cudaMemcpyHostToDevice, s1)) ||
            !checkRuntime(cudaMemcpyAsync(down, dev_out, BYTES, cudaMemcpyDeviceToHost, s1)) ||
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
    if (s1)
        ok = checkRuntime(cudaStreamDestroy(s1)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
