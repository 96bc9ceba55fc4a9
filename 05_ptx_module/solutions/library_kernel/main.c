/*
 * Exercise library_kernel: one load of a kernel, used in every context (reference solution).
 *
 * A module (cuModuleLoadData) belongs to the context that was current when it was loaded; its
 * functions do not run in another context. A library (cuLibraryLoadData, CUDA 12.0) is loaded
 * once and serves every context, those that exist and those created later: cuLibraryGetKernel
 * gives a context-free CUkernel, and cuKernelGetFunction turns it into the CUfunction of the
 * current context.
 * Check: make check SOLUTIONS=1 (from 05_ptx_module), or run build/solutions/library_kernel.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <nvrtc.h>

#include "check.h"

static const char source[] = "extern \"C\" __global__ void twice(float *y, int n)\n"
                             "{\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n)\n"
                             "        y[i] *= 2.0f;\n"
                             "}\n";

enum { N = 4096 };

/* Run `twice` on N floats in the current context; print and return the number wrong (-1 when
 * a call failed). */
static int run_twice(CUfunction f, const char *where)
{
    float y[N];
    CUdeviceptr dy = 0;
    int n = N, wrong = -1;
    void *params[] = {&dy, &n};
    for (int i = 0; i < N; i++)
        y[i] = (float)(i % 100);
    if (checkDriver(cuMemAlloc(&dy, sizeof y)) && checkDriver(cuMemcpyHtoD(dy, y, sizeof y)) &&
        checkDriver(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL)) &&
        checkDriver(cuCtxSynchronize()) && checkDriver(cuMemcpyDtoH(y, dy, sizeof y))) {
        wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += y[i] != 2.0f * (float)(i % 100);
        printf("%s: y = 2 y on %d floats: %d wrong\n", where, N, wrong);
    }
    if (dy)
        checkDriver(cuMemFree(dy));
    return wrong;
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
            printf("usage: %s [--device N]\nLoads a kernel once and runs it in two contexts.\n", lesson_prog);
            return EXIT_OK;
        }
        if (opt != 'd' || !parse_long(optarg, 0, 1023, "--device", &device)) {
            fprintf(stderr, "usage: %s [--device N]\n", lesson_prog);
            return EXIT_USAGE;
        }
    }
    bool ok = true;
    CUdevice dev;
    CUcontext primary = NULL, later = NULL, popped;
    CUlibrary library = NULL;
    CUkernel kernel;
    CUfunction f;
    nvrtcProgram prog = NULL;
    char *ptx = NULL;
    size_t ptx_size = 0;
    int major = 0, minor = 0, wrong0 = -1, wrong1 = -1;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, (int)device)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&primary, dev)))
        return EXIT_CHECK;
    char arch[64];
    if (!checkDriver(cuCtxSetCurrent(primary)) ||
        !checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) ||
        !checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))) {
        ok = false;
        goto cleanup;
    }
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCreateProgram(&prog, source, "twice.cu", 0, NULL, NULL) != NVRTC_SUCCESS ||
        nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS || nvrtcGetPTXSize(prog, &ptx_size) != NVRTC_SUCCESS ||
        !(ptx = malloc(ptx_size)) || nvrtcGetPTX(prog, ptx) != NVRTC_SUCCESS) {
        fprintf(stderr, "%s: NVRTC could not compile twice\n", lesson_prog);
        ok = false;
        goto cleanup;
    }

    /* One load, with the primary context current. */
    if (!checkDriver(cuLibraryLoadData(&library, ptx, NULL, NULL, 0, NULL, NULL, 0)) ||
        !checkDriver(cuLibraryGetKernel(&kernel, library, "twice"))) {
        ok = false;
        goto cleanup;
    }
    printf("loaded once, with cuLibraryLoadData\n");
    /* Context 0: the primary context, which existed at the load. */
    ok = checkDriver(cuKernelGetFunction(&f, kernel)) &&
         (wrong0 = run_twice(f, "context 0 (primary, existed at the load)")) >= 0;
    /* Context 1: a user context created after the load (cuCtxCreate makes it current). */
#if CUDA_VERSION >= 13000
    ok = ok && checkDriver(cuCtxCreate(&later, NULL, 0, dev));
#else
    ok = ok && checkDriver(cuCtxCreate(&later, 0, dev));
#endif
    ok = ok && checkDriver(cuKernelGetFunction(&f, kernel)) &&
         (wrong1 = run_twice(f, "context 1 (created after the load)")) >= 0;
    claim(wrong0 == 0 && wrong1 == 0, "one load of the kernel ran right in both contexts");

cleanup:
    if (later)
        ok = checkDriver(cuCtxPopCurrent(&popped)) && checkDriver(cuCtxDestroy(later)) && ok;
    if (library)
        ok = checkDriver(cuLibraryUnload(library)) && ok;
    if (prog)
        nvrtcDestroyProgram(&prog);
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    free(ptx);
    return verdict(ok);
}
