/* 02_driver_context/start.c - step 1, the explicit start (cuInit, the devices, the environment
 * and compute mode that change what the lesson shows), and step 2, a context of our own: what
 * it costs in time and in device memory, judged against a control sample of free memory and
 * against the company NVML sees on the GPU. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_shared.h"
#include "lesson.h"
#include "platform.h"

/* The environment variables that change what this lesson shows. The driver reads them when it
 * initialises (cuInit) or makes a context: set in the shell, or by the program itself (setenv)
 * before its first CUDA call; changed later, they change nothing in this process. */
static void show_environment(void)
{
    static const struct {
        const char *name, *what;
    } vars[] = {
        {"CUDA_VISIBLE_DEVICES",
         "which GPUs the process sees, numbered from 0 in the order listed"},
        {"CUDA_DEVICE_ORDER", "FASTEST_FIRST (default) or PCI_BUS_ID: how the GPUs are numbered"},
        {"CUDA_MODULE_LOADING",
         "LAZY (default) or EAGER: when the runtime loads a kernel into a context"},
    };
    printf("   environment:\n");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].name);
        printf("     %-20s = %-12s %s\n", vars[i].name, v ? (*v ? v : "(empty)") : "(not set)",
               vars[i].what);
    }
}

/* Calls made before cuInit: which of them work. The first is the lesson's first CUDA call:
 * where the driver cannot run at all (no library, the stub), it says why and exits 77. */
static void before_cuinit(void)
{
    int count = 0, version = 0;
    CUresult r = cuDeviceGetCount(&count);
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuDeviceGetCount(&count)", __FILE__, __LINE__);
    CUcontext ctx = NULL;
    CUresult r_ctx = cuCtxGetCurrent(&ctx);
    CUresult r_version = cuDriverGetVersion(&version);
    const char *name = NULL;
    CUresult r_name = cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &name);
    printf("   before cuInit:\n");
    printf("     cuDeviceGetCount(&count)          -> %s (%d)\n", error_name(r), (int)r);
    printf("     cuCtxGetCurrent(&ctx)             -> %s (%d)\n", error_name(r_ctx), (int)r_ctx);
    printf("     cuDriverGetVersion(&version)      -> %s (%d), version %d\n", error_name(r_version),
           (int)r_version, version);
    printf("     cuGetErrorName(3, &name)          -> %s (%d), \"%s\"\n", error_name(r_name),
           (int)r_name, name ? name : "(none)");
    bool lookup_ok = true;
#if CUDA_VERSION >= 12000
    void *fn = NULL;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r_proc = cuGetProcAddress("cuInit", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    printf("     cuGetProcAddress(\"cuInit\", ...)   -> %s (%d), %s\n", error_name(r_proc),
           (int)r_proc, fn ? "a function pointer" : "no pointer");
    lookup_ok = r_proc == CUDA_SUCCESS && fn != NULL && found == CU_GET_PROC_ADDRESS_SUCCESS;
#endif
    claim(
        r == CUDA_ERROR_NOT_INITIALIZED && r_ctx == CUDA_ERROR_NOT_INITIALIZED,
        "cuDeviceGetCount and cuCtxGetCurrent fail with CUDA_ERROR_NOT_INITIALIZED before cuInit");
    claim(r_version == CUDA_SUCCESS && version > 0 && r_name == CUDA_SUCCESS && name && lookup_ok,
          "cuDriverGetVersion, cuGetErrorName%s work before cuInit: not every call needs it",
          CUDA_VERSION >= 12000 ? " and cuGetProcAddress" : "");
}

/* After cuInit: check what the variables shown above changed. */
static bool environment_claims(int count, bool pci_order, int driver_version)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES"), *order = getenv("CUDA_DEVICE_ORDER");
    const char *loading = getenv("CUDA_MODULE_LOADING");
    if (visible && *visible) {
        int listed = 1;
        for (const char *c = visible; *c; c++)
            listed += *c == ',';
        claim(count <= listed,
              "CUDA_VISIBLE_DEVICES lists %d entr%s and the driver shows %d device(s): no more "
              "than listed",
              listed, listed == 1 ? "y" : "ies", count);
    }
    if (order && strcmp(order, "PCI_BUS_ID") == 0 && !(visible && *visible))
        claim(pci_order, "CUDA_DEVICE_ORDER=PCI_BUS_ID: the devices are numbered in PCI bus order");
    bool eager = loading && strcmp(loading, "EAGER") == 0;
    bool lazy = !loading || !*loading || strcmp(loading, "LAZY") == 0;
    bool asked = eager || (loading && *loading && lazy);
    bool by_default = !asked && lazy && lazy_loading_is_default(driver_version, CUDART_VERSION);
    if (lazy && !asked && !by_default) { /* the runtime or the driver is older than 12.2 */
        char why[200];
        snprintf(why, sizeof why,
                 "the driver supports CUDA %d.%d and this program's runtime is %d.%d: lazy "
                 "loading is the default only where both are 12.2 or newer",
                 driver_version / 1000, driver_version % 1000 / 10, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        not_judged(why, "CUDA_MODULE_LOADING is not set: loading is lazy");
    }
    CUmoduleLoadingMode mode = CU_MODULE_LAZY_LOADING;
    if (!checkDriver(cuModuleGetLoadingMode(&mode)))
        return false;
    printf("   cuModuleGetLoadingMode -> %s\n",
           mode == CU_MODULE_EAGER_LOADING ? "CU_MODULE_EAGER_LOADING" : "CU_MODULE_LAZY_LOADING");
    if (asked)
        claim(mode == (eager ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING),
              "the module loading mode is what CUDA_MODULE_LOADING asks for (%s)",
              eager ? "EAGER" : "LAZY");
    else if (by_default)
        claim(mode == CU_MODULE_LAZY_LOADING,
              "the module loading mode is what CUDA_MODULE_LOADING asks for (not set: LAZY, the "
              "default on Linux from CUDA 12.2, 12.3 on Windows, runtime and driver both)");
    return true;
}

static int compute_mode(struct lesson *L);

/* 1. Returns -1 to go on, else the exit code (77: no driver or no device here). */
int step_1_explicit_start(struct lesson *L)
{
    printf("\n1. The explicit start: cuInit, then the devices\n");
    int count = 0;
    show_environment();
    before_cuinit();
    double t0 = host_ms();
    if (!requireDriver(cuInit(0)))
        return verdict(false);
    double init_ms = host_ms() - t0;
    int driver_version = 0;
    if (!checkDriver(cuDriverGetVersion(&driver_version)) || !checkDriver(cuDeviceGetCount(&count)))
        return verdict(false);
    if (count < 1) {
        fprintf(stderr, "%s: cannot run here: the driver reports no CUDA device\n", lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    if (L->device >= count) {
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, L->device, count, count - 1);
        return EXIT_USAGE;
    }
    L->count = count;
    L->driver_version = driver_version;
    printf("   cuInit(0) took %.1f ms; the driver supports CUDA %d.%d; cuDeviceGetCount -> %d "
           "device(s)\n",
           init_ms, driver_version / 1000, driver_version % 1000 / 10, count);
    int listed = 0, ascending = 1;
    char prev_bus[32] = "";
    for (int d = 0; d < count && d < MAX_DEVICES; d++) {
        struct device_info info = {0};
        if (!describe_device(d, &info))
            return verdict(false);
        printf("   [device %d] \"%s\", compute capability %d.%d, %.2f GiB, PCI %s\n", d, info.name,
               info.major, info.minor, (double)info.total / (MIB * 1024.0), info.bus);
        listed += info.name[0] != '\0' && info.major > 0 && info.total > 0;
        ascending = ascending && strcmp(prev_bus, info.bus) < 0;
        snprintf(prev_bus, sizeof prev_bus, "%s", info.bus);
        if (d == L->device) {
            L->dev = info.dev;
            L->compute_mode = info.compute_mode;
            snprintf(L->name, sizeof L->name, "%s", info.name);
        }
    }
    claim(listed == count,
          "cuInit found %d device(s), each with a name, a compute capability and memory", count);
    printf("   steps 2 to 6 use device %ld, \"%s\"\n", L->device, L->name);
    int rc = compute_mode(L);
    if (rc >= 0)
        return rc;
    if (!environment_claims(count, ascending, driver_version))
        return verdict(false);
    return -1;
}

/* Who may hold a context on the device of steps 2 to 6. Returns -1 to go on, else the exit code. */
static int compute_mode(struct lesson *L)
{
    printf("   its compute mode (cuDeviceGetAttribute): %s",
           platform_compute_mode_name(L->compute_mode));
    if (!contexts_allowed(L->compute_mode)) {
        printf(": no process may make a context on it\n");
        fprintf(stderr,
                "%s: cannot run here: device %ld's compute mode is PROHIBITED: the driver lets no "
                "process make a context on it.\n%s: choose another GPU with --device, or ask the "
                "machine's "
                "administrator (nvidia-smi -q shows the mode).\n",
                lesson_prog, L->device, lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    if (one_context_at_a_time(L->compute_mode))
        printf(": this GPU lets one process at a time use it, and NVIDIA documents\n"
               "   one context on it at a time; if the driver refuses this lesson a second "
               "context, the\n"
               "   lesson stops and says so (exit 77)\n");
    else
        printf(": any number of contexts and processes may use it\n");
    return -1;
}

/* Part of what a context's memory is for, measured: every thread the device can hold gets a
 * stack (CU_LIMIT_STACK_SIZE bytes), so raising that limit in a new context should take
 * limit x SMs x threads per SM more. The rest of the figure is explained, not measured. */
static bool stack_reservation(struct lesson *L, double taken_med, double spread, char *company,
                              size_t company_len)
{
    bool ok = true;
    size_t stack_b = 0, fifo_b = 0, heap_b = 0;
    int sms = 0, threads = 0;
    TRY(checkDriver(cuCtxGetLimit(&stack_b, CU_LIMIT_STACK_SIZE)) &&
        checkDriver(cuCtxGetLimit(&fifo_b, CU_LIMIT_PRINTF_FIFO_SIZE)) &&
        checkDriver(cuCtxGetLimit(&heap_b, CU_LIMIT_MALLOC_HEAP_SIZE)) &&
        checkDriver(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, L->dev)) &&
        checkDriver(cuDeviceGetAttribute(
            &threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, L->dev)));
    printf("     ctxA's limits (cuCtxGetLimit): stack %zu B per thread, printf FIFO %.2f MiB, "
           "malloc heap %.2f MiB\n",
           stack_b, fifo_b / MIB, heap_b / MIB);
    CUcontext tmp = NULL;
    TRY(CREATE_CONTEXT(&tmp, L->dev));
    gpu_shared_sample();
    size_t before = free_memory(&ok);
    bool set_ok = checkDriver(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2 * stack_b));
    size_t after = free_memory(&ok);
    gpu_company(company, company_len);
    TRY(checkDriver(cuCtxDestroy(tmp)) && set_ok && ok);
    double grew = ((double)before - (double)after) / MIB;
    double model = (double)stack_b * sms * threads / MIB;
    printf("     in a new context, cuCtxSetLimit(CU_LIMIT_STACK_SIZE, %zu) took %.1f MiB more;\n"
           "     model: %zu B more per thread x %d SMs x %d threads per SM = %.1f MiB\n",
           2 * stack_b, grew, stack_b, sms, threads, model);
    if (*company) {
        not_judged(company,
                   "raising the stack limit reserved it for every thread the device can hold");
    } else if (!memory_judgeable(spread, 0.1 * model)) {
        char why[160];
        snprintf(why, sizeof why,
                 "free device memory moved by %.1f MiB by itself (the control), more than "
                 "10%% of the model",
                 spread);
        not_judged(why, "raising the stack limit reserved it for every thread the device can hold");
    } else if (grew > 0.0) {
        claim(grew > 0.9 * model && grew < 1.1 * model,
              "raising the stack limit reserved it for every thread the device can hold: "
              "%.1f MiB, the model's %.1f MiB within 10%%",
              grew, model);
        printf(
            "     inferred, if the first %zu B per thread are reserved the same way: %.1f of the\n"
            "     %.1f MiB a context takes are stacks; the rest (printf FIFO, malloc heap, the\n"
            "     driver's own buffers) is not measured here\n",
            stack_b, model, taken_med);
    } else {
        not_judged("the driver reserved nothing when the limit was raised",
                   "raising the stack limit reserved it for every thread the device can hold");
    }
    return ok;
}

/* 2. ctxA stays current after this step: the observer of step 2, the bottom of step 3. */
bool step_2_a_context_of_our_own(struct lesson *L)
{
    bool ok = true;
    printf("\n2. A context of our own: cuCtxCreate\n");
    printf("   CUDA %d.%d headers: %s\n", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
           CREATE_FORM);
    printf(
        "   (the three-argument cuCtxCreate(&ctx, 0, dev) found in many examples is the CUDA 12\n"
        "   form and no longer compiles with CUDA 13)\n");
    double t0 = host_ms();
    TRY(CREATE_CONTEXT(&ctx_a, L->dev));
    double first_ms = host_ms() - t0;
    CUcontext now = current(&ok);
    printf("   ctxA = %p, created in %.1f ms (the first context of this process)\n", (void *)ctx_a,
           first_ms);
    claim(now == ctx_a, "a context is current as soon as cuCtxCreate returns (ctxA)");

    printf("   %ld rounds of create + destroy, watched from ctxA with cuMemGetInfo:\n", L->repeat);
    gpu_shared_sample(); /* who else has a context on this GPU: NVML, before, during, after */
    double spread = free_memory_spread(&ok); /* the control, before and after the rounds */
    double create_ms[MAX_REPEAT], destroy_ms[MAX_REPEAT], taken_mib[MAX_REPEAT];
    double worst_return_mib = 0.0;
    bool back_to_a = true;
    for (int i = 0; i < L->repeat; i++) {
        CUcontext tmp = NULL;
        gpu_shared_sample();
        size_t before = free_memory(&ok);
        t0 = host_ms();
        TRY(CREATE_CONTEXT(&tmp, L->dev));
        create_ms[i] = host_ms() - t0;
        size_t with_it = free_memory(&ok); /* device-wide figure; tmp is current now */
        t0 = host_ms();
        TRY(checkDriver(cuCtxDestroy(tmp)));
        destroy_ms[i] = host_ms() - t0;
        back_to_a = back_to_a && current(&ok) == ctx_a;
        size_t after = free_memory(&ok);
        gpu_shared_sample();
        taken_mib[i] = ((double)before - (double)with_it) / MIB;
        double not_returned = ((double)before - (double)after) / MIB;
        if (not_returned > worst_return_mib)
            worst_return_mib = not_returned;
        if (i == 0)
            printf(
                "     round 1: free device memory %.1f MiB before, %.1f MiB with the new context, "
                "%.1f MiB after destroying it\n",
                before / MIB, with_it / MIB, after / MIB);
    }
    double spread_after = free_memory_spread(&ok);
    char company[512] = "";
    gpu_company(company, sizeof company);
    TRY(ok);
    spread = spread_after > spread ? spread_after : spread;
    int n = (int)L->repeat;
    double create_med = median_of(create_ms, n), destroy_med = median_of(destroy_ms, n);
    double taken_med = median_of(taken_mib, n);
    printf("     cuCtxCreate : median %.1f ms (min %.1f, max %.1f)\n", create_med, create_ms[0],
           create_ms[n - 1]);
    printf("     cuCtxDestroy: median %.1f ms (min %.1f, max %.1f)\n", destroy_med, destroy_ms[0],
           destroy_ms[n - 1]);
    printf("     device memory a context takes: median %.1f MiB (min %.1f, max %.1f)\n", taken_med,
           taken_mib[0], taken_mib[n - 1]);
    /* The yardstick, measured here: what switching contexts costs (a push and a pop of ctxA). */
    enum { PAIRS = 1000 };
    t0 = host_ms();
    for (int i = 0; i < PAIRS; i++) {
        CUcontext popped;
        TRY(checkDriver(cuCtxPushCurrent(ctx_a)) && checkDriver(cuCtxPopCurrent(&popped)));
    }
    double pair_us = (host_ms() - t0) * 1000.0 / PAIRS;
    printf("     cuCtxPushCurrent + cuCtxPopCurrent: %.2f us a pair (%d pairs)\n", pair_us, PAIRS);
    printf("     the control: free device memory, read 10 times 10 ms apart before the rounds and "
           "again\n"
           "     after them with nothing of this process changing, moved by %.1f MiB\n",
           spread);
    char why[200];
    snprintf(why, sizeof why,
             "free device memory moved by %.1f MiB by itself (the control): another "
             "program allocates on this GPU",
             spread);
    if (*company)
        not_judged(company, "every new context took device memory");
    else if (memory_judgeable(spread, taken_mib[0]))
        claim(taken_mib[0] > 0.0, "every new context took device memory: %.1f MiB or more",
              taken_mib[0]);
    else
        not_judged(why, "every new context took device memory");
    if (*company)
        not_judged(company,
                   "cuCtxDestroy gave that memory back (within 1%% of what it took, each round)");
    else if (memory_judgeable(spread, 0.01 * taken_med))
        claim(worst_return_mib <= 0.01 * taken_med,
              "cuCtxDestroy gave that memory back (within 1%% of what it took, each round)");
    else
        not_judged(why,
                   "cuCtxDestroy gave that memory back (within 1%% of what it took, each round)");
    claim(back_to_a, "destroying the current context popped it: ctxA was current again each time");
    char tool[256];
    if (under_tool(tool, sizeof tool))
        not_judged(
            tool,
            "a context is costly to make: median %.1f ms, %.0fx a push + pop pair (more than 100x)",
            create_med, create_med * 1000.0 / pair_us);
    else
        claim(
            create_med * 1000.0 > 100.0 * pair_us,
            "a context is costly to make: median %.1f ms, %.0fx a push + pop pair (more than 100x)",
            create_med, create_med * 1000.0 / pair_us);
    TRY(stack_reservation(L, taken_med, spread, company, sizeof company));
    return ok;
}
