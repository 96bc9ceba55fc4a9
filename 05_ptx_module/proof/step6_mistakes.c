/* 05_ptx_module/step6_mistakes.c - the end of step 6: three mistakes of widely copied Driver
 * API examples, each made here and shown: a C++ kernel looked up by its plain name, a
 * kernelParams entry that points at a value of another size than the parameter (both ways),
 * and an array initialiser that sets one element. IN_DEPTH.md, "Common mistakes". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvrtc.h>

#include "ptx_module.h"

/* A common example's kernel as it is written there (no extern "C"), and two kernels that show
 * the bytes they were given for a 4-byte and for an 8-byte parameter. */
static const char mistakes_source[] =
    "__global__ void add_one(float* a, int n) {\n"
    "    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (idx < n) {\n"
    "        a[idx] += 1.0f;\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void show_int(int n, int *out) { *out = n; }\n"
    "extern \"C\" __global__ void show_n(unsigned long long n, unsigned long long *out) "
    "{ *out = n; }\n";

/* g) cuModuleGetFunction(&func, mod, "add_one") on a kernel without extern "C". */
static bool plain_name(CUmodule mod, const struct ptx_facts *facts, CUdeviceptr buf)
{
    CUfunction f = NULL;
    CUresult r = cuModuleGetFunction(&f, mod, "add_one");
    char mangled[64] = "";
    sscanf(facts->entries, "%63s", mangled); /* add_one comes first in the source */
    printf("   g) a common example's add_one, compiled as C++ (no extern \"C\"): "
           "cuModuleGetFunction(\"add_one\")\n"
           "      -> %s (%d); the PTX's entry is %s\n",
           cu_name(r), (int)r, mangled);
    claim(r == CUDA_ERROR_NOT_FOUND, "a C++ kernel is not found by its plain name");
    float a[256];
    int n = 256, wrong = 0;
    for (int i = 0; i < n; i++)
        a[i] = 1.0f;
    void *args[] = {&buf, &n};
    if (!checkDriver(cuModuleGetFunction(&f, mod, mangled)) ||
        !checkDriver(cuMemcpyHtoD(buf, a, sizeof a)) ||
        !checkDriver(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL)) ||
        !checkDriver(cuCtxSynchronize()) || !checkDriver(cuMemcpyDtoH(a, buf, sizeof a)))
        return false;
    for (int i = 0; i < n; i++)
        wrong += a[i] != 2.0f;
    printf("      cuModuleGetFunction(\"%s\") and cuLaunchKernel(<<<1, 256>>>, {&d_a, &N}): %d of "
           "256 wrong\n",
           mangled, wrong);
    claim(wrong == 0, "by its mangled name the same kernel is found and adds one to every element");
    return true;
}

/* Launch `name` (one thread) with kernelParams {value, &buf}, and read back the `size` bytes
 * it wrote to buf: what the kernel received. */
static bool show_param(CUmodule mod, const char *name, void *value, CUdeviceptr buf, void *got,
                       size_t size)
{
    CUfunction f;
    void *args[] = {value, &buf};
    return checkDriver(cuModuleGetFunction(&f, mod, name)) &&
           checkDriver(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL)) &&
           checkDriver(cuCtxSynchronize()) && checkDriver(cuMemcpyDtoH(got, buf, size));
}

/* h) kernelParams = {&d_data, &N} with size_t N: each pointer must point at exactly the
 *    parameter's type, for the driver copies as many bytes as the parameter has from it. */
static bool param_type(CUmodule mod, CUdeviceptr buf)
{
    size_t big_n = 1024; /* what the example declares; the kernel's n is an int */
    int32_t got_int = 0, first_half;
    memcpy(&first_half, &big_n, sizeof first_half);
    uint16_t probe = 1;
    bool little = *(const uint8_t *)&probe == 1;
    if (!show_param(mod, "show_int", &big_n, buf, &got_int, sizeof got_int))
        return false;
    printf("   h) a common example's kernelParams {&d_data, &N} with size_t N = 1024, for a kernel "
           "whose n is\n"
           "      an int: the kernel received %d, the first 4 of N's 8 bytes (on this %s-endian "
           "host\n"
           "      its %s half: %s)\n",
           (int)got_int, little ? "little" : "big", little ? "low" : "high",
           little ? "right by luck" : "wrong");
    claim(got_int == first_half,
          "for a 4-byte parameter the driver copied 4 bytes from &N, the first half of the size_t");
    struct {
        int n;    /* what the caller meant to pass */
        int next; /* whatever lies after it in memory */
    } pair = {1024, 7};
    unsigned long long got = 0;
    if (!show_param(mod, "show_n", &pair.n, buf, &got, sizeof got))
        return false;
    printf("      the reverse, a pointer to a 4-byte int for an 8-byte parameter\n"
           "      (n = 1024, followed in memory by an int 7): the kernel received %llu = 7 * 2^32 "
           "+ 1024\n",
           got);
    claim(got == ((uint64_t)7 << 32 | 1024),
          "the driver copied the parameter's 8 bytes from &n: 4 of n, 4 of "
          "its neighbour: each kernelParams entry must point at exactly the parameter's type");
    return true;
}

/* i) float h_data[N] = {1.0f}; sets element 0 only (C11 6.7.9: the rest are 0). */
static void one_initialiser(void)
{
    float h_data[1024] = {1.0f};
    int ones = 0;
    for (int i = 0; i < 1024; i++)
        ones += h_data[i] == 1.0f;
    printf("   i) a common example's float h_data[1024] = {1.0f}: %d element(s) are 1.0, the other "
           "%d are 0.0\n",
           ones, 1024 - ones);
    claim(ones == 1 && h_data[0] == 1.0f,
          "an initialiser list sets the elements it names; the rest are zero");
}

bool common_mistakes(struct lesson *L)
{
    char *ptx = NULL; /* to read the entry names; the image loaded is PTX, or a cubin (step 1) */
    char *image = nvrtc_image(mistakes_source, "add_one.cu", L, &ptx);
    CUmodule mod = NULL;
    CUdeviceptr buf = 0;
    bool ok = image && checkDriver(cuModuleLoadData(&mod, image)) &&
              checkDriver(cuMemAlloc(&buf, 256 * sizeof(float)));
    struct ptx_facts facts;
    if (ok)
        read_ptx_facts(ptx, &facts);
    ok = ok && plain_name(mod, &facts, buf) && param_type(mod, buf);
    if (ok)
        one_initialiser();
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;
    if (mod)
        ok = checkDriver(cuModuleUnload(mod)) && ok;
    free(image);
    free(ptx);
    return ok;
}
