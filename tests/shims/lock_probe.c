/*
 * tests/shims/lock_probe.c - takes a context on device 0 the way a program would, to drive
 * the shim's exclusive-process mode (tests/shims/cuda_shim.c) from the tests:
 *
 *     DIR/lock_probe runtime|driver [--hold FILE]
 *
 * runtime: cudaSetDevice + cudaFree(0) (the primary context); driver: cuInit +
 * cuDevicePrimaryCtxRetain, both reached through libcuda.so.1's cuGetProcAddress_v2 as the
 * runtime reaches them.
 * Prints the result's name and number ("cudaSuccess (0)", "cudaErrorDevicesUnavailable (46)",
 * ...). With --hold it writes FILE once the context is there and keeps it until FILE is
 * removed. Exit 0 when the context was made, 1 otherwise.
 *
 *     DIR/lock_probe entry NAME
 *
 * Prints "same" when libcuda.so.1's cuGetProcAddress_v2(NAME, 12000) gives the address dlsym
 * gives for NAME (as the real driver does), "differs" when not, "CUresult (N)" when it fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "entry")) {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW), *fn = NULL;
        int (*get)(const char *, void **, int, uint64_t, int *) = NULL;
        int q, r = CUDA_ERROR_NOT_FOUND;
        if (lib)
            *(void **)&get = dlsym(lib, "cuGetProcAddress_v2");
        if (get)
            r = get(argv[2], &fn, 12000, 0, &q);
        if (r != CUDA_SUCCESS)
            printf("CUresult (%d)\n", r);
        else
            printf("%s\n", fn == dlsym(lib, argv[2]) ? "same" : "differs");
        return r == CUDA_SUCCESS ? 0 : 1;
    }
    const char *hold = argc == 4 && !strcmp(argv[2], "--hold") ? argv[3] : NULL;
    if (argc < 2 || (argc != 2 && !hold)) {
        fprintf(stderr, "usage: lock_probe runtime|driver [--hold FILE]\n");
        return 2;
    }
    int ok;
    if (!strcmp(argv[1], "runtime")) {
        cudaError_t e = cudaSetDevice(0);
        if (e == cudaSuccess)
            e = cudaFree(0);
        printf("%s (%d)\n", cudaGetErrorName(e), (int)e);
        ok = e == cudaSuccess;
    } else {
        int (*get)(const char *, void **, int, uint64_t, int *) = NULL;
        CUresult (*init)(unsigned) = NULL;
        CUresult (*retain)(CUcontext *, CUdevice) = NULL;
        void *lib = dlopen("libcuda.so.1", RTLD_NOW);
        int q;
        CUcontext ctx;
        CUresult r = CUDA_ERROR_NOT_FOUND;
        if (lib)
            *(void **)&get = dlsym(lib, "cuGetProcAddress_v2");
        if (get && get("cuInit", (void **)&init, 12000, 0, &q) == 0 &&
            get("cuDevicePrimaryCtxRetain", (void **)&retain, 12000, 0, &q) == 0 && init &&
            retain && (r = init(0)) == CUDA_SUCCESS)
            r = retain(&ctx, 0);
        printf("CUresult (%d)\n", (int)r);
        ok = r == CUDA_SUCCESS;
    }
    fflush(stdout);
    if (ok && hold) {
        FILE *f = fopen(hold, "w");
        if (f)
            fclose(f);
        while (access(hold, F_OK) == 0)
            usleep(20000);
    }
    return ok ? 0 : 1;
}
