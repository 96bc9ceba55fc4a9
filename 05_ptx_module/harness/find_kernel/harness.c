/*
 * 05_ptx_module/harness/find_kernel - the grader's side of exercise find_kernel: compiles a C++
 * kernel `scale` whose parameter types change from run to run (chosen by the seed, so its
 * mangled name does too) with NVRTC into SASS for this GPU, calling before_compile() and
 * kernel_name() (find.c) around the compile; reports the name given, whether the module has a
 * kernel of that name, its results on fresh data, and the student's calls of
 * nvrtcAddNameExpression and nvrtcGetLoweredName (the linker's --wrap). It judges nothing.
 */
#define _DEFAULT_SOURCE /* mmap, sysconf */
#include <sys/mman.h>
#include <unistd.h>

#include "05_harness.h"
#include "harness_watch.h"
#include "find_kernel.h"

static const char *const variants[4] = {
    "__global__ void scale(float *y, float s, int n)\n",
    "__global__ void scale(float *y, double s, int n)\n",
    "__global__ void scale(float *y, float s, unsigned int n)\n",
    "__global__ void scale(float *y, float s, long n)\n",
};
static const char body[] = "{\n"
                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < n)\n"
                           "        y[i] *= s;\n"
                           "}\n";
static int added, lowered;

nvrtcResult __real_nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression);
nvrtcResult __wrap_nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression)
{
    added++;
    return __real_nvrtcAddNameExpression(prog, name_expression);
}

/* The lowered name as the student's code gets it: a copy whose terminator is the last byte
 * before a page that cannot be read (PROT_NONE), so that code reading past the string's end
 * (a fixed-length memcpy of it) stops the program instead of reading NVRTC's neighbouring
 * bytes. Kept until the program ends. NULL: no such page (the name is given as it is). */
static const char *guarded_copy(const char *s)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t n = strlen(s) + 1;
    if (page <= 0 || n > (size_t)page)
        return NULL;
    char *two =
        mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED)
        return NULL;
    if (mprotect(two + page, (size_t)page, PROT_NONE) != 0) {
        munmap(two, 2 * (size_t)page);
        return NULL;
    }
    memset(two, '#', (size_t)page);
    memcpy(two + page - n, s, n);
    return two + page - n;
}

nvrtcResult __real_nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                       const char **name);
nvrtcResult __wrap_nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                       const char **name)
{
    lowered++;
    nvrtcResult r = __real_nvrtcGetLoweredName(prog, name_expression, name);
    const char *guarded = r == NVRTC_SUCCESS && *name ? guarded_copy(*name) : NULL;
    if (guarded)
        *name = guarded;
    return r;
}

/* The buffers kernel_name() fills, each ending where a page that cannot be touched begins (a
 * write past the length given stops the program), and holding '#' first (no zero anywhere), so
 * a name only counts when kernel_name() terminated it. The length given comes from the seed:
 * room for the name and up to 186 bytes more, then, in a second call, less room than the name
 * needs (1 .. 13 bytes: the name must be cut there, or not given). The name found is copied
 * into name for the lookup. */
static char name[256];
static uint32_t name_seed;

static bool after(nvrtcProgram prog, void *arg)
{
    (void)arg;
    size_t len = 14 + name_seed % 187, short_len = 1 + (name_seed / 187) % 13;
    char *given = harness_guarded(len), *cut = harness_guarded(short_len);
    if (!given || !cut)
        return false;
    memset(given, '#', len);
    bool ok = kernel_name(prog, given, len);
    bool terminated = memchr(given, '\0', len) != NULL;
    memset(name, 0, sizeof name);
    if (terminated)
        memcpy(name, given, strlen(given) < sizeof name ? strlen(given) : sizeof name - 1);
    harness_report("kernel_name", "%s %s", ok ? "true" : "false",
                   !terminated ? "(unterminated)"
                   : name[0]   ? name
                               : "(empty)");
    harness_report("name_bounds", "within"); /* past the length given, the program stopped */
    memset(cut, '#', short_len);
    bool cut_ok = kernel_name(prog, cut, short_len);
    harness_report("short_name", "%zu %s %s", short_len, cut_ok ? "true" : "false",
                   memchr(cut, '\0', short_len) ? "terminated" : "unterminated");
    return true;
}

static void run(CUfunction f, int variant, uint32_t seed, int k, size_t n)
{
    CUdeviceptr dy = 0;
    float s = 0.5f;
    double sd = 0.5;
    int ni = (int)n;
    unsigned int nu = (unsigned int)n;
    long nl = (long)n;
    void *params[3] = {&dy, variant == 1 ? (void *)&sd : (void *)&s,
                       variant == 2   ? (void *)&nu
                       : variant == 3 ? (void *)&nl
                                      : (void *)&ni};
    harness_kernel_case(f, params, &dy, n, seed, k);
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise find_kernel: compiles a C++ kernel around before_compile() and "
                  "kernel_name(), looks the name up.");
    CUdevice dev;
    CUcontext ctx = NULL;
    CUmodule module = NULL;
    CUfunction f;
    char *image = NULL;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
        return EXIT_CHECK;
    /* asked before before_compile(): the kernel's parameter types (the source you are given)
     * must exist before your first call */
    uint32_t seed = harness_seed_now();
    name_seed = seed;
    int variant = (int)(seed % 4);
    char source[512];
    snprintf(source, sizeof source, "%s%s", variants[variant], body);
    struct harness_watch w = harness_watch_take(); /* your calls make no driver resource */
    bool ok = checkDriver(cuCtxSetCurrent(ctx)) &&
              nvrtc_image(source, "scale.cu", dev, before_compile, after, NULL, &image);
    harness_watch_check("find_kernel", &w, NULL);
    ok = ok && checkDriver(cuModuleLoadData(&module, image));
    if (ok) {
        harness_report("calls", "%d %d", added, lowered);
        CUresult r = cuModuleGetFunction(&f, module, name);
        harness_report("lookup", "%s", r == CUDA_SUCCESS ? "found" : "not-found");
        if (r == CUDA_SUCCESS) {
            run(f, variant, seed, 0, 1000 + seed % 4096);
            run(f, variant, seed, 1, 65536 + seed % 7);
        }
    }
    if (module)
        ok = checkDriver(cuModuleUnload(module)) && ok;
    free(image);
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    return harness_end(seed, ok);
}
