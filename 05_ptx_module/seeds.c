/* 05_ptx_module/seeds.c - the end of step 6: three slips of the source documents this lesson
 * is built on, each made here and shown: a C++ kernel looked up by its plain name, a
 * kernelParams entry that points at a value of another type than the parameter, and an array
 * initialiser that sets one element. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvrtc.h>

#include "ptx_module.h"

/* Seed 004's kernel as it is written there (no extern "C"), and a kernel that shows the 8
 * bytes it was given for a 64-bit parameter. */
static const char seed_source[] = "__global__ void add_one(float* a, int n) {\n"
                                  "    int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "    if (idx < n) {\n"
                                  "        a[idx] += 1.0f;\n"
                                  "    }\n"
                                  "}\n"
                                  "extern \"C\" __global__ void show_n(unsigned long long n, "
                                  "unsigned long long *out) { *out = n; }\n";

/* g) seed 004: cuModuleGetFunction(&func, mod, "add_one") on a kernel without extern "C". */
static bool plain_name(CUmodule mod, const struct ptx_facts *facts, CUdeviceptr buf)
{
    CUfunction f = NULL;
    CUresult r = cuModuleGetFunction(&f, mod, "add_one");
    char mangled[64] = "";
    sscanf(facts->entries, "%63s", mangled); /* add_one comes first in the source */
    printf("   g) seed 004's add_one, compiled as C++ (no extern \"C\"): "
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

/* h) seed 003: kernelParams = {&d_data, &N}: each pointer must point at exactly the
 *    parameter's type; the driver copies as many bytes as the parameter has. */
static bool param_type(CUmodule mod, CUdeviceptr buf)
{
    struct {
        int n;    /* what the caller meant to pass */
        int next; /* whatever lies after it in memory */
    } pair = {1024, 7};
    CUfunction f;
    unsigned long long got = 0;
    void *args[] = {&pair.n, &buf};
    if (!checkDriver(cuModuleGetFunction(&f, mod, "show_n")) ||
        !checkDriver(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL)) ||
        !checkDriver(cuCtxSynchronize()) || !checkDriver(cuMemcpyDtoH(&got, buf, sizeof got)))
        return false;
    printf("   h) seed 003's kernelParams {&d_data, &N}: a pointer to a 4-byte int for an 8-byte "
           "parameter\n"
           "      (n = 1024, followed in memory by an int 7): the kernel received %llu = 7 * 2^32 "
           "+ 1024\n",
           got);
    claim(got == ((uint64_t)7 << 32 | 1024),
          "the driver copied the parameter's 8 bytes from &n: 4 of n, 4 of "
          "its neighbour: each kernelParams entry must point at exactly the parameter's type");
    return true;
}

/* i) seed 003: float h_data[N] = {1.0f}; sets element 0 only (C11 6.7.9: the rest are 0). */
static void one_initialiser(void)
{
    float h_data[1024] = {1.0f};
    int ones = 0;
    for (int i = 0; i < 1024; i++)
        ones += h_data[i] == 1.0f;
    printf("   i) seed 003's float h_data[1024] = {1.0f}: %d element(s) are 1.0, the other %d are "
           "0.0\n",
           ones, 1024 - ones);
    claim(ones == 1 && h_data[0] == 1.0f,
          "an initialiser list sets the elements it names; the rest are zero");
}

bool seeds_slips(struct lesson *L)
{
    char *ptx = NULL; /* to read the entry names; the image loaded is PTX, or a cubin (step 1) */
    char *image = nvrtc_compile(seed_source, "seed_004.cu", L, &ptx);
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
