/*
 * Exercise find_kernel: find a C++ kernel in a module by its real name.
 * (This copy is the reference solution.)
 *
 * The source below declares its kernel WITHOUT extern "C", as most CUDA C++ code does. The
 * compiler then gives the kernel a C++ "mangled" name that encodes its parameter types, and
 * that mangled name is the one in the PTX and in the module: cuModuleGetFunction(..., "scale")
 * fails with CUDA_ERROR_NOT_FOUND.
 *
 * YOUR TASK: make the lookup find the kernel WITHOUT changing the kernel source string. Ask
 * NVRTC for the mangled name: register the name expression "scale" with
 * nvrtcAddNameExpression() before compiling, read the result with nvrtcGetLoweredName() after
 * compiling (before nvrtcDestroyProgram), and look that name up. Print it on the line
 * "kernel name in the module: <name>".
 * Check: make check (from 05_ptx_module), or run build/exercises/find_kernel.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvrtc.h>

#include "check.h"

static const char source[] =
    "__global__ void scale(float *y, float s, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] *= s;\n"
    "}\n";

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
            printf("usage: %s [--device N]\nFinds the C++ kernel `scale` in an NVRTC-made module.\n",
                   lesson_prog);
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
    CUfunction scale;
    CUdeviceptr dy = 0;
    nvrtcProgram prog = NULL;
    char *ptx = NULL;
    char name[256] = "scale"; /* the name cuModuleGetFunction looks up */
    float *y = malloc(N * sizeof(float));
    int major = 0, minor = 0;
    if (!y)
        return EXIT_CHECK;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, (int)device)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev))) {
        free(y);
        return EXIT_CHECK;
    }
    if (!checkDriver(cuCtxSetCurrent(ctx)) ||
        !checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) ||
        !checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))) {
        ok = false;
        goto cleanup;
    }

    char arch[64];
    size_t ptx_size = 0;
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCreateProgram(&prog, source, "scale.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
        ok = false;
        goto cleanup;
    }
    /* SOLUTION: ask NVRTC to keep track of the expression "scale" ... */
    if (nvrtcAddNameExpression(prog, "scale") != NVRTC_SUCCESS) {
        ok = false;
        goto cleanup;
    }
    if (nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS ||
        nvrtcGetPTXSize(prog, &ptx_size) != NVRTC_SUCCESS || !(ptx = malloc(ptx_size)) ||
        nvrtcGetPTX(prog, ptx) != NVRTC_SUCCESS) {
        fprintf(stderr, "%s: NVRTC could not compile scale\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    /* ... and, after compiling, read the name the compiler gave it. */
    const char *lowered = NULL;
    if (nvrtcGetLoweredName(prog, "scale", &lowered) != NVRTC_SUCCESS) {
        ok = false;
        goto cleanup;
    }
    snprintf(name, sizeof name, "%s", lowered);
    printf("kernel name in the module: %s\n", name);

    if (!checkDriver(cuModuleLoadData(&module, ptx)) ||
        !checkDriver(cuModuleGetFunction(&scale, module, name)) ||
        !checkDriver(cuMemAlloc(&dy, N * sizeof(float)))) {
        ok = false;
        goto cleanup;
    }
    for (int i = 0; i < N; i++)
        y[i] = (float)(i % 100);
    float s = 0.5f;
    int n = N;
    void *params[] = {&dy, &s, &n};
    if (!checkDriver(cuMemcpyHtoD(dy, y, N * sizeof(float))) ||
        !checkDriver(cuLaunchKernel(scale, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL)) ||
        !checkDriver(cuCtxSynchronize()) || !checkDriver(cuMemcpyDtoH(y, dy, N * sizeof(float)))) {
        ok = false;
        goto cleanup;
    }
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += y[i] != 0.5f * (float)(i % 100);
    printf("y = 0.5 y on %d floats: %d wrong\n", N, wrong);
    claim(strcmp(name, "scale") != 0, "the kernel's name in the module is its mangled C++ name");
    claim(wrong == 0, "the kernel found by that name ran and scaled every element");

cleanup:
    if (module)
        ok = checkDriver(cuModuleUnload(module)) && ok;
    if (dy)
        ok = checkDriver(cuMemFree(dy)) && ok;
    if (prog)
        nvrtcDestroyProgram(&prog);
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    free(ptx);
    free(y);
    return verdict(ok);
}
