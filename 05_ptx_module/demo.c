/* 05_ptx_module/demo.c - the idea on one page: PTX text that `nvcc -ptx` wrote, handed to the
 * driver, which compiles it for this GPU (cuModuleLoadData); the kernel found by its name
 * (cuModuleGetFunction) and launched (cuLaunchKernel); the result checked on the host. It builds
 * from this folder alone (README.md):
 *   nvcc -ptx -o kernels.ptx kernels.cu && nvcc -o demo demo.c -lcuda
 * Usage: demo [FILE.ptx] (default kernels.ptx, else build/kernels.ptx, the one make writes).
 * Exit 0 right, 1 a CUDA call or a check failed, 2 no PTX file, 77 no GPU here (demo.h). */
#include "demo.h"

enum { N = 1 << 16 };
static char ptx[1 << 20]; /* PTX is text: cuModuleLoadData wants it NUL-terminated */
static float x[N], y[N];
static CUdevice dev;
static CUcontext ctx;   /* the device's primary context */
static CUmodule mod;    /* the PTX, compiled for this GPU */
static CUfunction axpy; /* its kernel */
static CUdeviceptr dx, dy;

/* The device's primary context made current; the PTX loaded into it, which is when the driver's
 * JIT compiles it for this GPU; `axpy` found in it by its name; the SASS it runs as, against the
 * GPU's compute capability. */
static bool load(void)
{
    int ptx_version = 0, sass_version = 0, maj = 0, min = 0;
    if (!checkDriver(cuInit(0)))
        return false;
    if (!checkDriver(cuDeviceGet(&dev, 0)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
        return false;
    if (!checkDriver(cuCtxSetCurrent(ctx)))
        return false;
    if (!checkDriver(cuModuleLoadData(&mod, ptx))) /* the JIT compiles it, here */
        return false;
    if (!checkDriver(cuModuleGetFunction(&axpy, mod, "axpy"))) /* its extern "C" name */
        return false;
    if (!checkDriver(cuFuncGetAttribute(&ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION, axpy)))
        return false;
    if (!checkDriver(cuFuncGetAttribute(&sass_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION, axpy)))
        return false;
    if (!checkDriver(cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)))
        return false;
    if (!checkDriver(cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))
        return false;
    printf("axpy: PTX version %d, SASS for sm_%d; the GPU: compute capability %d.%d\n", ptx_version,
           sass_version, maj, min);
    return claim(sass_version == 10 * maj + min,
                 "cuModuleLoadData compiled the PTX into this GPU's own SASS");
}

/* y = 2 * x + y on the GPU: the data in, one cuLaunchKernel with a pointer to each argument, the
 * result out (main frees the buffers). */
static bool run_axpy(void)
{
    float a = 2.0f;
    int n = N;
    void *args[] = {&a, &dx, &dy, &n}; /* axpy(float a, const float *x, float *y, int n) */
    if (!checkDriver(cuMemAlloc(&dx, sizeof x)))
        return false;
    if (!checkDriver(cuMemAlloc(&dy, sizeof y)))
        return false;
    if (!checkDriver(cuMemcpyHtoD(dx, x, sizeof x)))
        return false;
    if (!checkDriver(cuMemcpyHtoD(dy, y, sizeof y)))
        return false;
    if (!checkDriver(cuLaunchKernel(axpy, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL)))
        return false;
    if (!checkDriver(cuCtxSynchronize()))
        return false;
    return checkDriver(cuMemcpyDtoH(y, dy, sizeof y));
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "kernels.ptx";
    FILE *f = fopen(path, "r");
    if (!f && argc == 1) /* not made by hand: the one make wrote */
        f = fopen(path = "build/kernels.ptx", "r");
    size_t len = f ? fread(ptx, 1, sizeof ptx - 1, f) : 0;
    if (f)
        fclose(f);
    if (len == 0) {
        fprintf(stderr, "demo: cannot read %s: make it with nvcc -ptx -o kernels.ptx kernels.cu\n",
                path);
        return 2;
    }
    printf("%s: %zu bytes of PTX text\n", path, len);
    int wrong = 0;
    bool ok = false;
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 1000), y[i] = 1.0f;
    if (!load() || !run_axpy())
        goto done;
    for (int i = 0; i < N; i++)
        wrong += y[i] != 2.0f * x[i] + 1.0f;
    ok = claim(wrong == 0, "cuLaunchKernel(axpy): y = 2 * x + y, all 65536 elements right");
done:
    ok = (!dx || checkDriver(cuMemFree(dx))) && ok;
    ok = (!dy || checkDriver(cuMemFree(dy))) && ok;
    ok = (!mod || checkDriver(cuModuleUnload(mod))) && ok;
    ok = (!ctx || checkDriver(cuDevicePrimaryCtxRelease(dev))) && ok;
    return verdict(ok);
}
