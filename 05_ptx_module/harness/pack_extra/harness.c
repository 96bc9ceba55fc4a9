/*
 * 05_ptx_module/harness/pack_extra - the grader's side of exercise pack_extra: asks pack_args()
 * (pack.c) to pack values the harness can recognise and reports where each one landed and the
 * size given; then launches axpy (compiled to SASS for this GPU by NVRTC) with the buffer
 * pack_args() packs, on fresh data of three sizes, and reports the sums of y = a x + y.
 * It judges nothing (grading/harness/exercise_harness.h).
 */
#include "05_harness.h"
#include "harness_watch.h"
#include "pack_extra.h"

static const char source[] =
    "extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* The offset of the first copy of value (len bytes) in buf, or -1. */
static int find(const unsigned char *buf, const void *value, size_t len)
{
    for (size_t off = 0; off + len <= 64; off++)
        if (memcmp(buf + off, value, len) == 0)
            return (int)off;
    return -1;
}

static void run(CUfunction axpy, uint32_t seed, int k, int n)
{
    size_t bytes = (size_t)n * sizeof(float), size = 0;
    float *x = malloc(bytes), *y = malloc(bytes);
    CUdeviceptr dx = 0, dy = 0;
    unsigned char *args = harness_guarded(64); /* see main */
    bool ok = args && x && y && cuMemAlloc(&dx, bytes) == CUDA_SUCCESS &&
              cuMemAlloc(&dy, bytes) == CUDA_SUCCESS;
    if (ok) {
        harness_fill(x, (size_t)n, seed, k);
        for (int i = 0; i < n; i++)
            y[i] = 1.0f;
        ok = cuMemcpyHtoD(dx, x, bytes) == CUDA_SUCCESS &&
             cuMemcpyHtoD(dy, y, bytes) == CUDA_SUCCESS;
    }
    if (ok) {
        memset(args, 0, 64);
        pack_args(args, &size, 3.0f, dx, dy, n);
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         CU_LAUNCH_PARAM_END};
        for (int i = 0; i < n; i++)
            y[i] = -1;
        ok = size <= 64 &&
             checkDriver(cuLaunchKernel(axpy, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL,
                                        NULL, extra)) &&
             checkDriver(cuCtxSynchronize()) && checkDriver(cuMemcpyDtoH(y, dy, bytes));
    }
    harness_case(k, ok, y, (size_t)n, "failed");
    if (dx)
        (void)cuMemFree(dx);
    if (dy)
        (void)cuMemFree(dy);
    free(x);
    free(y);
}

/* pack_args(), in the stand-in's window: it makes no driver resource. */
static void watched_pack(unsigned char *buf, size_t *size, float a, CUdeviceptr x, CUdeviceptr y,
                         int n)
{
    struct harness_watch w = harness_watch_take();
    pack_args(buf, size, a, x, y, n);
    harness_watch_check("pack_extra", &w, NULL);
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise pack_extra: where pack_args() puts each parameter, and axpy launched "
                  "with its buffer.");
    CUdevice dev;
    CUcontext ctx = NULL;
    CUmodule module = NULL;
    CUfunction axpy;
    char *image = NULL;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
        return EXIT_CHECK;
    bool ok = checkDriver(cuCtxSetCurrent(ctx)) &&
              nvrtc_image(source, "axpy.cu", dev, NULL, NULL, NULL, &image) &&
              checkDriver(cuModuleLoadData(&module, image)) &&
              checkDriver(cuModuleGetFunction(&axpy, module, "axpy"));
    unsigned char *buf = harness_guarded(64); /* a write past its 64 bytes stops the program */
    if (ok && buf) {
        /* The layout: values the harness can find again, in a buffer full of 0xab. */
        uint32_t seed = harness_seed_now(); /* before pack_args(): the values come from it */
        size_t size = 0;
        float a = 1.75f;
        CUdeviceptr x = 0x0123456789abcdefULL + seed, y = 0x0fedcba987654321ULL + seed;
        int n = 0x5a000000 + (int)(seed % 0xffff);
        memset(buf, 0xab, 64);
        watched_pack(buf, &size, a, x, y, n);
        harness_report("size", "%zu", size);
        harness_report("layout", "%d %d %d %d", find(buf, &a, sizeof a), find(buf, &x, sizeof x),
                       find(buf, &y, sizeof y), find(buf, &n, sizeof n));
        run(axpy, seed, 0, 1000 + (int)(seed % 4096));
        run(axpy, seed, 1, (1 << 16) + 4099 + (int)(seed % 1000));
        run(axpy, seed, 2, 4097 + (int)(seed % 100));
    }
    if (module)
        ok = checkDriver(cuModuleUnload(module)) && ok;
    free(image);
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    return harness_end(harness_seed_now(), ok); /* asked above, or now where no kernel was had */
}
