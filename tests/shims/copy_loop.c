/*
 * tests/shims/copy_loop.c - a neighbour on the GPU: copies to and from the device, both
 * directions at once, until stopped (or for SECONDS), as another job sharing the card would.
 *
 *     DIR/copy_loop [--device N] [--bytes MiB] [--seconds S] [--ready FILE]
 *
 * (DIR from: bash tests/shims/build DIR.) Writes FILE once the copies run (a test waits for it),
 * and prints the rate it got every second on stderr when COPY_LOOP_VERBOSE=1. Exit 0 when
 * stopped by SIGTERM/SIGINT or after SECONDS; 1 when a CUDA call failed (with the reason).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#define CHECK(op)                                                                       \
    do {                                                                                \
        cudaError_t e_ = (op);                                                          \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "copy_loop: %s failed: %s\n", #op, cudaGetErrorString(e_)); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    int device = 0;
    size_t bytes = (size_t)256 << 20;
    double seconds = 0;
    const char *ready = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            device = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--bytes"))
            bytes = (size_t)atol(argv[i + 1]) << 20;
        else if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--ready"))
            ready = argv[i + 1];
        else {
            fprintf(stderr, "copy_loop: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    void *h[2], *d[2];
    cudaStream_t s[2];
    CHECK(cudaSetDevice(device));
    for (int k = 0; k < 2; k++) {
        CHECK(cudaMallocHost(&h[k], bytes));
        memset(h[k], k, bytes);
        CHECK(cudaMalloc(&d[k], bytes));
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    }
    bool verbose = getenv("COPY_LOOP_VERBOSE") && *getenv("COPY_LOOP_VERBOSE") == '1';
    double start = now(), last = start;
    long rounds = 0;
    while (!stop && (seconds <= 0 || now() - start < seconds)) {
        CHECK(cudaMemcpyAsync(d[0], h[0], bytes, cudaMemcpyHostToDevice, s[0]));
        CHECK(cudaMemcpyAsync(h[1], d[1], bytes, cudaMemcpyDeviceToHost, s[1]));
        CHECK(cudaStreamSynchronize(s[0]));
        CHECK(cudaStreamSynchronize(s[1]));
        if (rounds++ == 0 && ready) {
            FILE *f = fopen(ready, "w");
            if (f)
                fclose(f);
        }
        if (verbose && now() - last >= 1) {
            fprintf(stderr, "copy_loop: %.1f GB/s each way\n",
                    rounds * (double)bytes / 1e9 / (now() - start));
            last = now();
        }
    }
    for (int k = 0; k < 2; k++) {
        cudaStreamDestroy(s[k]);
        cudaFree(d[k]);
        cudaFreeHost(h[k]);
    }
    return 0;
}
