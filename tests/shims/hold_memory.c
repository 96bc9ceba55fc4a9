/*
 * tests/shims/hold_memory.c - another process holding most of a GPU's memory, so that a
 * lesson beside it runs as on a small card (8 GiB, say) or a shared one.
 *
 *     DIR/hold_memory --leave GiB [--device N] [--ready FILE]
 *
 * (DIR from: bash tests/shims/build DIR.) Allocates 256 MiB blocks until only GiB (a decimal
 * number) of the device's memory is free, writes FILE with the free and total bytes, then
 * waits for SIGTERM/SIGINT and frees them. Exit 1 when a CUDA call failed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

int main(int argc, char **argv)
{
    int device = 0;
    double leave = -1;
    const char *ready = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            device = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--leave"))
            leave = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--ready"))
            ready = argv[i + 1];
        else {
            fprintf(stderr, "hold_memory: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (leave < 0) {
        fprintf(stderr, "usage: hold_memory --leave GiB [--device N] [--ready FILE]\n");
        return 2;
    }
    /* SIGTERM and SIGINT blocked before the first CUDA call, so that the driver's threads
     * inherit the mask and the signal waits for sigwait below: with a handler and pause(), a
     * signal taken by one of the driver's threads would leave the main thread paused for ever
     * (the likely cause, not confirmed, of a test run that once hung beside this program). */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    size_t keep = (size_t)(leave * 1073741824.0), block = (size_t)256 << 20, free_b = 0, total = 0;
    static void *held[4096];
    int n = 0;
    cudaError_t e = cudaSetDevice(device);
    while (e == cudaSuccess && (e = cudaMemGetInfo(&free_b, &total)) == cudaSuccess &&
           free_b > keep + block && n < 4096) {
        e = cudaMalloc(&held[n], block);
        if (e == cudaSuccess)
            n++;
    }
    if (e != cudaSuccess && e != cudaErrorMemoryAllocation) {
        fprintf(stderr, "hold_memory: %s\n", cudaGetErrorString(e));
        return 1;
    }
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total);
    if (ready) {
        FILE *f = fopen(ready, "w");
        if (f) {
            fprintf(f, "%zu %zu\n", free_b, total);
            fclose(f);
        }
    }
    int sig = 0;
    sigwait(&stop_signals, &sig);
    for (int i = 0; i < n; i++)
        cudaFree(held[i]);
    return 0;
}
