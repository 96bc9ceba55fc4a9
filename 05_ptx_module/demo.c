/* 05_ptx_module/demo.c - the idea in one page: PTX text made by `nvcc -ptx`, loaded by the
 * driver (which compiles it for this GPU), the kernel looked up by name, launched with
 * cuLaunchKernel, the result checked on the host. Usage: demo [FILE.ptx] (default kernels.ptx, else
 * build/kernels.ptx, the one make writes).
 * Exit 0 right, 1 a CUDA call or the check failed, 2 no PTX file, 77 no GPU here. */
#include <stdio.h>
#include <stdlib.h>

#include "core.h"

enum { N_DEMO = 1 << 16 };

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    const char *path = argc > 1 ? argv[1] : "kernels.ptx";
    static char ptx[1 << 20]; /* PTX is text: cuModuleLoadData wants it NUL-terminated */
    FILE *f = fopen(path, "r");
    if (!f && argc == 1) /* not made by hand: take the one make wrote */
        f = fopen(path = "build/kernels.ptx", "r");
    size_t len = f ? fread(ptx, 1, sizeof ptx - 1, f) : 0;
    if (f)
        fclose(f);
    if (len == 0) {
        fprintf(stderr, "demo: cannot read %s: make it with nvcc -ptx -o kernels.ptx kernels.cu\n",
                path);
        return EXIT_USAGE;
    }
    ptx[len] = '\0';

    CUdevice dev;
    CUcontext ctx;
    if (!requireDriver(cuInit(0)) || !requireDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
        return EXIT_CHECK;
    if (!checkDriver(cuCtxSetCurrent(ctx))) {
        checkDriver(cuDevicePrimaryCtxRelease(dev));
        return EXIT_CHECK;
    }
    printf("1. %s: %zu bytes of PTX text\n", path, len);

    CUmodule mod = NULL;
    CUfunction axpy;
    double t0 = host_ms();
    bool ok = checkDriver(cuModuleLoadData(&mod, ptx)); /* the driver's JIT compiles it, here */
    if (ok)
        printf("2. cuModuleLoadData: the driver compiled it for this GPU in %.1f ms\n",
               host_ms() - t0);
    ok = ok && checkDriver(cuModuleGetFunction(&axpy, mod, "axpy")); /* its extern "C" name */
    if (ok)
        printf("3. cuModuleGetFunction(\"axpy\"): found\n");

    static float x[N_DEMO], y[N_DEMO];
    for (int i = 0; i < N_DEMO; i++)
        x[i] = (float)(i % 1000), y[i] = 1.0f;
    CUdeviceptr dx = 0, dy = 0;
    ok = ok && checkDriver(cuMemAlloc(&dx, sizeof x)) && checkDriver(cuMemAlloc(&dy, sizeof y)) &&
         checkDriver(cuMemcpyHtoD(dx, x, sizeof x)) && checkDriver(cuMemcpyHtoD(dy, y, sizeof y)) &&
         checkDriver(launch_axpy(axpy, 2.0f, dx, dy, N_DEMO)) && /* cuLaunchKernel */
         checkDriver(cuCtxSynchronize()) && checkDriver(cuMemcpyDtoH(y, dy, sizeof y));
    int wrong = 0;
    for (int i = 0; ok && i < N_DEMO; i++)
        wrong += y[i] != 2.0f * x[i] + 1.0f;
    if (ok)
        printf("4. cuLaunchKernel(axpy, y = 2 * x + y on %d floats): %d wrong\n", N_DEMO, wrong);
    ok = (!dx || checkDriver(cuMemFree(dx))) && (!dy || checkDriver(cuMemFree(dy))) && ok;
    ok = (!mod || checkDriver(cuModuleUnload(mod))) && ok;
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    printf("%s\n", ok && wrong == 0 ? "RESULT: PASS" : "RESULT: FAIL");
    return ok && wrong == 0 ? EXIT_OK : EXIT_CHECK;
}
