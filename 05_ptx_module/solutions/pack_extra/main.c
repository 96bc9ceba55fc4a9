/*
 * Exercise pack_extra: launch a kernel with cuLaunchKernel's `extra` buffer.
 * (This copy is the reference solution.)
 *
 * The kernel is   extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
 * and `extra` hands cuLaunchKernel ONE buffer holding all four parameters, laid out exactly as
 * the kernel's parameter list is laid out in memory: each parameter at an offset that is a
 * multiple of its own size (its alignment), in order.
 *
 * YOUR TASK: fix pack_args() below so that the buffer has that layout, and report its size.
 * Today it packs the values back to back (a at 0, x at 4, ...): the pointers are then at
 * offsets the kernel does not read them from, and the launch fails or computes garbage.
 * Check: make check (from 05_ptx_module), or run build/exercises/pack_extra.
 *
 * Hint: the pointer x must start at an offset that is a multiple of 8. A C struct with the
 * same members in the same order has exactly the kernel's layout; offsetof() tells you where.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvrtc.h>

#include "check.h"

static const char source[] =
    "extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* Pack (a, x, y, n) into buf the way the kernel's parameters lie; set *size to the number of
 * bytes used (up to the end of the last parameter). */
static void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* SOLUTION: each parameter at its natural alignment, as a C struct lays them out. */
    struct axpy_args {
        float a;       /* 0, then 4 bytes of padding */
        CUdeviceptr x; /* 8 */
        CUdeviceptr y; /* 16 */
        int n;         /* 24 */
    };
    memcpy(buf + offsetof(struct axpy_args, a), &a, sizeof a);
    memcpy(buf + offsetof(struct axpy_args, x), &x, sizeof x);
    memcpy(buf + offsetof(struct axpy_args, y), &y, sizeof y);
    memcpy(buf + offsetof(struct axpy_args, n), &n, sizeof n);
    *size = offsetof(struct axpy_args, n) + sizeof n; /* 28 */
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    long device = 0;
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
        if (opt == 'h') {
            printf("usage: %s [--device N]\nLaunches axpy with cuLaunchKernel's extra buffer.\n", lesson_prog);
            return EXIT_OK;
        }
        if (opt != 'd' || !parse_long(optarg, 0, 1023, "--device", &device)) {
            fprintf(stderr, "usage: %s [--device N]\n", lesson_prog);
            return EXIT_USAGE;
        }
    }

    enum { N = 1 << 16 };
    bool ok = true;
    CUdevice dev;
    CUcontext ctx = NULL;
    CUmodule module = NULL;
    CUfunction axpy;
    CUdeviceptr dx = 0, dy = 0;
    nvrtcProgram prog = NULL;
    char *ptx = NULL;
    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    int major = 0, minor = 0;
    if (!x || !y) {
        free(x);
        free(y);
        return EXIT_CHECK;
    }
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, (int)device)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev))) {
        free(x);
        free(y);
        return EXIT_CHECK;
    }
    if (!checkDriver(cuCtxSetCurrent(ctx)) ||
        !checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) ||
        !checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))) {
        ok = false;
        goto cleanup;
    }

    /* axpy as PTX for this card (NVRTC), loaded as a module. */
    char arch[64];
    size_t ptx_size = 0;
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCreateProgram(&prog, source, "axpy.cu", 0, NULL, NULL) != NVRTC_SUCCESS ||
        nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS ||
        nvrtcGetPTXSize(prog, &ptx_size) != NVRTC_SUCCESS || !(ptx = malloc(ptx_size)) ||
        nvrtcGetPTX(prog, ptx) != NVRTC_SUCCESS) {
        fprintf(stderr, "%s: NVRTC could not compile axpy\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    if (!checkDriver(cuModuleLoadData(&module, ptx)) ||
        !checkDriver(cuModuleGetFunction(&axpy, module, "axpy")) ||
        !checkDriver(cuMemAlloc(&dx, N * sizeof(float))) || !checkDriver(cuMemAlloc(&dy, N * sizeof(float)))) {
        ok = false;
        goto cleanup;
    }
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 100);
        y[i] = 1.0f;
    }
    if (!checkDriver(cuMemcpyHtoD(dx, x, N * sizeof(float))) ||
        !checkDriver(cuMemcpyHtoD(dy, y, N * sizeof(float)))) {
        ok = false;
        goto cleanup;
    }

    unsigned char args[64];
    size_t size = 0;
    memset(args, 0, sizeof args);
    pack_args(args, &size, 3.0f, dx, dy, N);
    printf("packed %zu bytes of arguments\n", size);
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    if (!checkDriver(cuLaunchKernel(axpy, N / 256, 1, 1, 256, 1, 1, 0, NULL, NULL, extra)) ||
        !checkDriver(cuCtxSynchronize()) || !checkDriver(cuMemcpyDtoH(y, dy, N * sizeof(float)))) {
        ok = false;
        goto cleanup;
    }
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += y[i] != 3.0f * (float)(i % 100) + 1.0f;
    printf("y = 3x + 1 on %d floats: %d wrong\n", N, wrong);
    claim(size == 28, "the buffer is 28 bytes: a at 0, x at 8, y at 16, n at 24");
    claim(wrong == 0, "the kernel read every parameter where the buffer put it");

cleanup:
    if (module)
        ok = checkDriver(cuModuleUnload(module)) && ok;
    if (dx)
        ok = checkDriver(cuMemFree(dx)) && ok;
    if (dy)
        ok = checkDriver(cuMemFree(dy)) && ok;
    if (prog)
        nvrtcDestroyProgram(&prog);
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    free(ptx);
    free(x);
    free(y);
    return verdict(ok);
}
