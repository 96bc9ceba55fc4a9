/*
 * 01_hello_runtime - the Runtime API's lazy primary context, watched through the Driver API.
 *
 * main() is the table of contents: one function per numbered step of the output, in the
 * order of README.md, which annotates the output of each:
 *   0. the CUDA environment variables in effect, and what each changes here (environment.c);
 *   1. before any CUDA call the driver is not initialised;
 *   2. cudaGetDeviceCount initialises it but creates no context; the device's compute mode
 *      (who may hold a context on it: machine.c decides how the child processes run); which
 *      other first calls start a context (first_calls.c, one child process per call);
 *   3. cudaSetDevice creates the device's primary context and makes it current: the very
 *      context cuDevicePrimaryCtxRetain returns;
 *   4. the runtime and driver versions, and the rule between them;
 *   5. the check macros at work: an invalid call, a launch error caught by cudaGetLastError,
 *      and a device fault, in two child processes: without CUDA_LAUNCH_BLOCKING it shows at
 *      synchronisation, with CUDA_LAUNCH_BLOCKING=1 at the launch itself;
 *   6. a kernel launched from C through an extern "C" launcher, its result verified; a launch
 *      returns before its kernel ends (unless CUDA_LAUNCH_BLOCKING=1);
 *   7. the current context belongs to a host thread;
 *   8. the primary context's lifecycle: flags before and after activation, cudaInitDevice,
 *      reference counting against the runtime's own reference, the two resets (lifecycle.c,
 *      in a child process).
 * child.c runs this program again as a child process; kernel.cu holds the device code. On a
 * GPU that lets one process at a time use it, this process gives its context back before the
 * children of steps 5c and 8 run (give_back_context_for_child, take_context_again).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"
#include "lesson.h"
#include "platform.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--help]\n"
            "Shows when the CUDA runtime initialises the driver and creates the primary\n"
            "context, and checks every claim it prints.\n"
            "  -d, --device N   the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -h, --help       this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
            "             2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog);
}

static const char *driver_error_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

/* ---- 1. before any CUDA call ------------------------------------------------------------ */

static void step_1_before_any_call(void)
{
    printf("\n1. Before any CUDA call\n");
    CUcontext ctx = (CUcontext)(uintptr_t)0x5eed; /* a marker, to see if the call writes it */
    CUresult r = cuCtxGetCurrent(&ctx);
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuCtxGetCurrent(&ctx)", __FILE__, __LINE__);
    printf("   cuCtxGetCurrent(&ctx) -> %s (%d); ctx still holds our marker %p\n",
           driver_error_name(r), (int)r, (void *)ctx);
    printf("   (seed 001 printed \"(nil)\" here: it set ctx to NULL and ignored the result)\n");
    claim(r == CUDA_ERROR_NOT_INITIALIZED,
          "the driver is not initialised before the first CUDA call");
}

/* ---- 2. cudaGetDeviceCount: the runtime's first call ------------------------------------ */

/* Who may hold a context on this device: it decides how the child processes run. */
static bool step_2_compute_mode(struct lesson *L, bool *cannot_run)
{
    if (!checkDriver(
            cuDeviceGetAttribute(&L->compute_mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, L->cu_dev)))
        return false;
    static const char *meaning[] = {
        [CHILDREN_SIDE_BY_SIDE] =
            "any number of processes may use it at once: the child processes\n"
            "   below run side by side",
        [CHILDREN_ONE_AT_A_TIME] =
            "this GPU lets one process at a time use it: the child processes\n"
            "   below run one at a time, and this process holds no context while one runs",
        [NO_CONTEXT_ALLOWED] = "no process may make a context on this GPU",
    };
    enum child_plan plan = child_plan_for(L->compute_mode);
    printf("   compute mode of device %d (cuDeviceGetAttribute): %s: %s\n", L->device,
           platform_compute_mode_name(L->compute_mode), meaning[plan]);
    if (plan == NO_CONTEXT_ALLOWED) {
        fprintf(stderr,
                "%s: cannot run here: device %d's compute mode is PROHIBITED: the driver lets no "
                "process\n"
                "make a context on it.\n%s: choose another GPU with --device, or ask the machine's "
                "administrator (nvidia-smi -q shows the mode; nvidia-smi -c sets it).\n",
                lesson_prog, L->device, lesson_prog);
        *cannot_run = true;
        return false;
    }
    return true;
}

/* A step returns false when a CUDA call failed (the check macros said which), or, here, when
 * --device names a device that does not exist (then *no_such_device is set). */
static bool step_2_first_runtime_call(struct lesson *L, bool *no_such_device, bool *cannot_run)
{
    printf("\n2. cudaGetDeviceCount: the runtime's first call\n");
    if (!requireRuntime(cudaGetDeviceCount(&L->count)))
        return false;
    printf("   cudaGetDeviceCount -> %d device(s)\n", L->count);
    if (L->device >= L->count) {
        fprintf(stderr,
                "%s: --device %d does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, L->device, L->count, L->count - 1);
        *no_such_device = true;
        return false;
    }
    unsigned int flags = 0;
    int active = -1;
    CUcontext ctx = (CUcontext)(uintptr_t)0x5eed;
    CUresult r = cuCtxGetCurrent(&ctx);
    if (!checkDriver(r) || !checkDriver(cuDeviceGet(&L->cu_dev, L->device)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(L->cu_dev, &flags, &active)))
        return false;
    printf("   cuCtxGetCurrent -> %s, ctx = %s\n", driver_error_name(r), ctx ? "not NULL" : "NULL");
    printf("   cuDevicePrimaryCtxGetState(device %d) -> active = %d\n", L->device, active);
    claim(r == CUDA_SUCCESS,
          "cudaGetDeviceCount initialised the driver (cuCtxGetCurrent now succeeds)");
    claim(ctx == NULL, "no context is current yet");
    claim(active == 0, "the primary context of device %d is not active yet", L->device);
    printf(
        "   (seed 001 says most runtime calls need a context, so that the first one creates it)\n");
    int listed = visible_devices_listed();
    if (listed > 0)
        claim(L->count <= listed,
              "CUDA_VISIBLE_DEVICES lists %d device(s): the runtime sees no more (%d)", listed,
              L->count);
    if (!step_2_compute_mode(L, cannot_run))
        return false;
    return step_2b_which_first_calls_start_a_context(L);
}

/* ---- 3. cudaSetDevice: the first call that needs a context ------------------------------ */

/* CUDA_MODULE_LOADING: when the kernels of this program are loaded into the new context. */
static bool step_3_module_loading(void)
{
    CUmoduleLoadingMode mode;
    int driver_version = 0, runtime_version = 0;
    if (!checkDriver(cuModuleGetLoadingMode(&mode)) ||
        !checkRuntime(cudaDriverGetVersion(&driver_version)) ||
        !checkRuntime(cudaRuntimeGetVersion(&runtime_version)))
        return false;
    const char *wanted = module_loading();
    bool lazy = mode == CU_MODULE_LAZY_LOADING;
    printf("   cuModuleGetLoadingMode     -> %s: %s\n", lazy ? "lazy" : "eager",
           lazy ? "each kernel is loaded at its first launch"
                : "every kernel was loaded with the context");
    if (!wanted) {
        if (lazy_loading_is_default(driver_version, runtime_version))
            claim(lazy, "CUDA_MODULE_LOADING is not set: loading is lazy, the default on Linux "
                        "since CUDA 12.2 "
                        "(on every platform since 12.3)");
        else
            not_judged("the runtime or the driver is older than CUDA 12.2, where lazy loading "
                       "became the default",
                       "loading is lazy by default");
    } else if (strcmp(wanted, "EAGER") == 0 || strcmp(wanted, "LAZY") == 0) {
        claim(lazy == (strcmp(wanted, "LAZY") == 0),
              "the loading mode is the one CUDA_MODULE_LOADING=%s asks for", wanted);
    } else {
        not_judged("a value other than EAGER or LAZY",
                   "CUDA_MODULE_LOADING=%s sets the loading mode", wanted);
    }
    return true;
}

static bool step_3_first_call_that_needs_a_context(struct lesson *L)
{
    printf("\n3. cudaSetDevice(%d): the first call that needs a context\n", L->device);
    double t0 = host_ms();
    /* the first context: where another process holds an EXCLUSIVE_PROCESS GPU, exit 77 */
    if (!requireRuntime(cudaSetDevice(L->device)))
        return false;
    double set_ms = host_ms() - t0;
    CUcontext retained = NULL;
    unsigned int flags = 0;
    int active = -1;
    if (!checkDriver(cuCtxGetCurrent(&L->primary)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(L->cu_dev, &flags, &active)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&retained, L->cu_dev)))
        return false;
    /* Retain adds a reference to the primary context; give it back at once. */
    if (!checkDriver(cuDevicePrimaryCtxRelease(L->cu_dev)) ||
        !checkRuntime(cudaGetDeviceProperties(&L->prop, L->device)))
        return false;
    printf("   device %d: \"%s\", compute capability %d.%d\n", L->device, L->prop.name,
           L->prop.major, L->prop.minor);
    printf("   cudaSetDevice took %.1f ms (it created the context: the cost of the first call)\n",
           set_ms);
    printf("   cuCtxGetCurrent            -> %p\n", (void *)L->primary);
    printf("   cuDevicePrimaryCtxRetain   -> %p\n", (void *)retained);
    printf("   cuDevicePrimaryCtxGetState -> active = %d\n", active);
    claim(L->primary != NULL, "cudaSetDevice made a context current");
    claim(L->primary == retained,
          "it is the device's primary context, the one cuDevicePrimaryCtxRetain returns");
    claim(active == 1, "the primary context is now active");
    return step_3_module_loading();
}

/* ---- 4. versions ------------------------------------------------------------------------ */

static void print_version(const char *call, int v, const char *what)
{
    printf("   %-21s -> %d.%d: %s\n", call, v / 1000, v % 1000 / 10, what);
}

static bool step_4_versions(const struct lesson *L)
{
    printf("\n4. Versions\n");
    int runtime_version = 0, driver_version = 0;
    unsigned int api_primary = 0, api_current = 0;
    if (!checkRuntime(cudaRuntimeGetVersion(&runtime_version)) ||
        !checkRuntime(cudaDriverGetVersion(&driver_version)) ||
        !checkDriver(cuCtxGetApiVersion(L->primary, &api_primary)) ||
        !checkDriver(cuCtxGetApiVersion(NULL, &api_current)))
        return false;
    print_version("cudaRuntimeGetVersion", runtime_version,
                  "the runtime linked into this program (libcudart_static.a)");
    print_version("cudaDriverGetVersion", driver_version,
                  "the newest CUDA version the driver (libcuda.so.1) supports");
    printf(
        "   cuCtxGetApiVersion    -> %u for the primary context, %u for NULL (the current one):\n"
        "                            the context's interface version: that of CUDA %u.%u, the "
        "last\n"
        "                            release that changed it, not the driver's version\n",
        api_primary, api_current, api_primary / 1000, api_primary % 1000 / 10);
    printf(
        "   the rules (NVIDIA's \"CUDA Compatibility\" guide): the runtime fails with\n"
        "   cudaErrorInsufficientDriver when the driver is older than the minimum for the "
        "runtime's\n"
        "   major version (CUDA 13.x needs driver 580 or newer, 12.x needs 525 or newer); within "
        "a\n"
        "   major version a newer runtime runs on an older driver (minor version compatibility),\n"
        "   except that the driver cannot JIT-compile PTX from the newer toolkit and some calls\n"
        "   return cudaErrorCallRequiresNewerDriver; the forward compatibility package "
        "(cuda-compat)\n"
        "   is the way past that, on the GPUs it supports.\n");
    if (runtime_version > driver_version)
        printf("   here: the runtime is newer than the driver, it runs by minor version "
               "compatibility\n");
    else
        printf("   here: the driver is as new as the runtime or newer (backward compatibility)\n");
    claim(runtime_version / 1000 <= driver_version / 1000,
          "the driver supports this runtime's major version (no cudaErrorInsufficientDriver)");
    claim(api_current == api_primary,
          "cuCtxGetApiVersion(NULL) answers for the current context, the primary one");
    claim(api_primary != (unsigned int)driver_version,
          "the context's API version is not the driver's CUDA version (%d.%d)",
          driver_version / 1000, driver_version % 1000 / 10);
    return true;
}

/* ---- 5. the check macros at work -------------------------------------------------------- */

static bool step_5a_invalid_call(const struct lesson *L)
{
    printf("   a) an invalid call: cudaSetDevice(%d), one past the last device\n", L->count);
    int invalid = L->count;
    bool reported = !checkRuntime(cudaSetDevice(invalid));
    cudaError_t last = cudaGetLastError(); /* any failed runtime call also sets "last error" */
    int still = -1;
    if (!checkRuntime(cudaGetDevice(&still)))
        return false;
    printf("   cudaGetLastError() -> %s (%d), and reading it cleared it\n", cudaGetErrorName(last),
           (int)last);
    claim(reported && last == cudaErrorInvalidDevice,
          "checkRuntime reported cudaErrorInvalidDevice with this file and line");
    claim(still == L->device, "the failed call left device %d current", L->device);
    return true;
}

static bool step_5b_bad_launch_configuration(const struct lesson *L)
{
    printf("   b) a bad launch configuration: 2048 threads per block (the limit is %d)\n",
           L->prop.maxThreadsPerBlock);
    enum { N = 1 << 20 };
    float *dev_data = NULL;
    if (!checkRuntime(cudaMalloc((void **)&dev_data, N * sizeof(float))))
        return false;
    launch_add_one(dev_data, N, 2048);
    cudaError_t launch_err = cudaGetLastError();
    printf("   cudaGetLastError() -> %s (%d): the launch never started\n",
           cudaGetErrorName(launch_err), (int)launch_err);
    cudaError_t after = cudaGetLastError();
    /* CUDA 13 reports a block dimension over the limit as cudaErrorInvalidValue; older
     * releases and many tutorials say cudaErrorInvalidConfiguration. Either is a launch error. */
    claim(launch_err == cudaErrorInvalidValue || launch_err == cudaErrorInvalidConfiguration,
          "cudaGetLastError caught the launch error at once, without synchronising");
    claim(after == cudaSuccess, "reading the error cleared it: a launch error is not sticky");
    return checkRuntime(cudaFree(dev_data));
}

/* Runs in the child (--fault-demo): a fault is "sticky", it spoils the context for the rest
 * of the process, so the parent keeps its own context clean by watching from outside. The
 * child prints its observations and its claim; the parent counts the claim as its own. */
static int fault_demo(int device)
{
    bool blocking = launch_blocking() == SET_ON;
    cudaError_t set = cudaSetDevice(device);
    if (no_context_for_child(set)) { /* the relay makes this the parent's not-judged claim */
        not_judged(cudaGetErrorName(set),
                   "%s: the driver gave this child process no context (another "
                   "process holds the GPU, or its memory is full)",
                   blocking ? "the fault with "
                              "CUDA_LAUNCH_BLOCKING=1"
                            : "the fault without CUDA_LAUNCH_BLOCKING");
        return EXIT_OK;
    }
    if (!checkRuntime(set))
        return EXIT_CHECK;
    double t0 = host_ms();
    launch_trap();
    double launch_ms = host_ms() - t0;
    cudaError_t at_launch = cudaGetLastError();
    cudaError_t at_sync = cudaDeviceSynchronize();
    void *p = NULL;
    cudaError_t afterwards = cudaMalloc(&p, 16);
    printf("   [child] the launch returned after %.1f ms\n", launch_ms);
    printf("   [child] cudaGetLastError() right after the launch -> %s\n",
           cudaGetErrorName(at_launch));
    printf("   [child] cudaDeviceSynchronize()                  -> %s (%d)\n",
           cudaGetErrorName(at_sync), (int)at_sync);
    printf("   [child] cudaMalloc() afterwards                  -> %s: the error is sticky\n",
           cudaGetErrorName(afterwards));
    if (afterwards == cudaSuccess)
        cudaFree(p);
    bool sticky = at_sync == cudaErrorLaunchFailure && afterwards == cudaErrorLaunchFailure;
    if (blocking)
        claim(at_launch == cudaErrorLaunchFailure && sticky,
              "with CUDA_LAUNCH_BLOCKING=1 the launch itself returned the fault, and both calls "
              "made after "
              "it returned it too");
    else
        claim(
            at_launch == cudaSuccess && sticky,
            "the fault showed only at synchronisation, and the call made after it returned it too");
    return EXIT_OK;
}

static bool step_5c_fault_in_a_running_kernel(struct lesson *L)
{
    printf("   c) a fault inside a running kernel, in two child processes (a fault ruins the "
           "context)\n");
    char dev[16];
    snprintf(dev, sizeof dev, "%d", L->device);
    char *args[] = {"--fault-demo", "--device", dev, NULL};
    if (!give_back_context_for_child(L))
        return false;
    printf("      without CUDA_LAUNCH_BLOCKING (removed from the child's environment):\n");
    int without = run_self(args, "CUDA_LAUNCH_BLOCKING", NULL);
    printf("      with CUDA_LAUNCH_BLOCKING=1 (each launch waits for its kernel):\n");
    int with = run_self(args, "CUDA_LAUNCH_BLOCKING", "1");
    if (without != EXIT_OK || with != EXIT_OK) {
        fprintf(stderr, "%s: step 5c's child processes exited %d and %d\n", lesson_prog, without,
                with);
        return false;
    }
    return take_context_again(L);
}

/* ---- a GPU that lets one process at a time use it (EXCLUSIVE_PROCESS) ------------------- */

/* A child process asks the driver for a context of its own; on such a GPU it gets none while
 * this process holds one. Nothing of the lesson lives in the primary context at steps 5c and
 * 8, so this process gives it back (cudaDeviceReset destroys it) and checks that it is gone. */
bool give_back_context_for_child(struct lesson *L)
{
    if (child_plan_for(L->compute_mode) != CHILDREN_ONE_AT_A_TIME)
        return true;
    unsigned int flags = 0;
    int active = -1;
    if (!checkRuntime(cudaDeviceReset()) ||
        !checkDriver(cuDevicePrimaryCtxGetState(L->cu_dev, &flags, &active)))
        return false;
    printf("      (compute mode %s: this process gives back its context first, cudaDeviceReset ->\n"
           "      active = %d, so that the child may have the GPU)\n",
           platform_compute_mode_name(L->compute_mode), active);
    claim(active == 0, "this process holds no context on device %d while its child process runs",
          L->device);
    return true;
}

/* ... and after the child, the runtime's next call starts a new primary context. cudaFree(0)
 * makes sure it is started (a cudaSetDevice of the device already set may only record it);
 * the steps that follow compare with L->primary, so it is read again and checked. */
bool take_context_again(struct lesson *L)
{
    if (child_plan_for(L->compute_mode) != CHILDREN_ONE_AT_A_TIME)
        return true;
    CUcontext retained = NULL;
    unsigned int flags = 0;
    int active = -1;
    if (!requireRuntime(cudaSetDevice(L->device)) || !checkRuntime(cudaFree(0)) ||
        !checkDriver(cuCtxGetCurrent(&L->primary)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&retained, L->cu_dev)) ||
        !checkDriver(cuDevicePrimaryCtxRelease(L->cu_dev)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(L->cu_dev, &flags, &active)))
        return false;
    printf("      (cudaSetDevice(%d), cudaFree(0): the runtime started a new primary context for "
           "the steps\n"
           "      that follow: current %p, cuDevicePrimaryCtxRetain %p, active = %d)\n",
           L->device, (void *)L->primary, (void *)retained, active);
    claim(L->primary == retained && active == 1,
          "after the child, the runtime started a new primary context and made it current here");
    return true;
}

static bool step_5_check_macros_at_work(struct lesson *L)
{
    printf("\n5. The check macros at work (the reports on stderr are expected)\n");
    return step_5a_invalid_call(L) && step_5b_bad_launch_configuration(L) &&
           step_5c_fault_in_a_running_kernel(L);
}

/* ---- 6. a kernel launched from C -------------------------------------------------------- */

/* A launch returns before its kernel ends, unless CUDA_LAUNCH_BLOCKING=1 is in effect. */
static bool step_6_launch_returns_at_once(void)
{
    const unsigned long long spin_ns = 20 * 1000 * 1000; /* 20 ms on the GPU's own timer */
    launch_spin(1000); /* loads the kernel (lazy loading) outside the measurement */
    if (!checkRuntime(cudaGetLastError()) || !checkRuntime(cudaDeviceSynchronize()))
        return false;
    double t0 = host_ms();
    launch_spin(spin_ns);
    double launch_ms = host_ms() - t0;
    cudaError_t query = cudaStreamQuery(NULL);
    double t1 = host_ms();
    if (!checkRuntime(cudaGetLastError()) || !checkRuntime(cudaDeviceSynchronize()))
        return false;
    double wait_ms = host_ms() - t1;
    printf("   spin<<<1, 1>>>(%.0f ms): the launch returned after %.3f ms; cudaStreamQuery -> %s;\n"
           "   cudaDeviceSynchronize then waited %.3f ms\n",
           spin_ns / 1e6, launch_ms, cudaGetErrorName(query), wait_ms);
    char why[256];
    bool tool = under_tool(why, sizeof why);
    switch (tool && launch_blocking() != SET_ON ? SET_OTHER : launch_blocking()) {
    case SET_ON:
        claim(query == cudaSuccess, "CUDA_LAUNCH_BLOCKING=1 is in effect: the launch returned only "
                                    "after its kernel had ended");
        break;
    case SET_OTHER: /* the launch against a 20 ms kernel: a race with the tool's own cost */
        not_judged(tool ? why : "CUDA_LAUNCH_BLOCKING is neither 0 nor 1",
                   "a launch returns before its kernel ends");
        break;
    default:
        claim(query == cudaErrorNotReady,
              "the launch returned before its kernel ended: launches are asynchronous");
    }
    return true;
}

static bool step_6_kernel_launched_from_c(void)
{
    printf("\n6. Seed 004's kernel, launched from C through an extern \"C\" launcher\n");
    enum { N = 1 << 20 };
    size_t bytes = N * sizeof(float);
    bool ok = false;
    float *dev_data = NULL;
    float *host = malloc(bytes);
    if (!host) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    for (int i = 0; i < N; i++)
        host[i] = (float)(i % 1000) - 500.0f;
    if (!checkRuntime(cudaMalloc((void **)&dev_data, bytes)) ||
        !checkRuntime(cudaMemcpy(dev_data, host, bytes, cudaMemcpyHostToDevice)))
        goto cleanup;
    launch_add_one(dev_data, N, 256);
    if (!checkRuntime(cudaGetLastError()) || !checkRuntime(cudaDeviceSynchronize()) ||
        !checkRuntime(cudaMemcpy(host, dev_data, bytes, cudaMemcpyDeviceToHost)))
        goto cleanup;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += host[i] != (float)(i % 1000) - 500.0f + 1.0f;
    printf("   add_one<<<%d, 256>>> on %d floats: %d wrong\n", (N + 255) / 256, N, wrong);
    claim(wrong == 0, "every element came back one larger");
    ok = step_6_launch_returns_at_once();
cleanup:
    if (dev_data)
        ok = checkRuntime(cudaFree(dev_data)) && ok;
    free(host);
    return ok;
}

/* ---- 7. the current context belongs to a host thread ------------------------------------ */

struct worker {
    int device;
    CUresult at_start_result;
    CUcontext at_start;  /* current context when the thread starts */
    CUcontext after_set; /* after cudaSetDevice in this thread */
    bool ok;             /* every CUDA call in the thread succeeded */
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->at_start_result = cuCtxGetCurrent(&w->at_start);
    w->ok = checkDriver(w->at_start_result) && checkRuntime(cudaSetDevice(w->device)) &&
            checkDriver(cuCtxGetCurrent(&w->after_set));
    return NULL;
}

static bool step_7_context_belongs_to_a_thread(const struct lesson *L)
{
    printf("\n7. The current context belongs to a host thread\n");
    struct worker w = {.device = L->device};
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker_main, &w) != 0) {
        fprintf(stderr, "%s: pthread_create failed\n", lesson_prog);
        return false;
    }
    pthread_join(thread, NULL);
    if (!w.ok)
        return false;
    printf("   new thread, at start:              cuCtxGetCurrent -> %s, ctx = %s\n",
           driver_error_name(w.at_start_result), w.at_start ? "not NULL" : "NULL");
    printf("   new thread, after cudaSetDevice(%d): cuCtxGetCurrent -> %p\n", L->device,
           (void *)w.after_set);
    printf("   main thread's context:                                 %p\n", (void *)L->primary);
    claim(w.at_start == NULL, "a new thread starts with no current context");
    claim(w.after_set == L->primary,
          "its first runtime call made the same primary context current there");
    return true;
}

/* ---- the command line, and the table of contents ---------------------------------------- */

enum mode { LESSON, FAULT_DEMO, FIRST_CALL, LIFECYCLE };

/* Returns -1 to go on, or the exit code (help, bad command line). */
static int parse_options(int argc, char **argv, struct lesson *L, enum mode *mode,
                         const char **child_arg)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {"fault-demo", no_argument, NULL, 'F'},       /* internal: step 5c's child process */
        {"first-call", required_argument, NULL, 'C'}, /* internal: step 2b's child process */
        {"lifecycle-demo", no_argument, NULL, 'L'},   /* internal: step 8's child process */
        {NULL, 0, NULL, 0},
    };
    long device = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (!parse_long(optarg, 0, 1023, "--device", &device)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        case 'F': *mode = FAULT_DEMO; break;
        case 'L': *mode = LIFECYCLE; break;
        case 'C':
            *mode = FIRST_CALL;
            *child_arg = optarg;
            break;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* The child's side is the lesson's own business: from the command line these options are
     * as unknown as any other (a child process of the lesson carries its parent's id). */
    if (*mode != LESSON && !started_by_the_lesson()) {
        fprintf(stderr, "%s: --%s is internal: the lesson itself starts it in a child process\n",
                lesson_prog,
                *mode == FAULT_DEMO   ? "fault-demo"
                : *mode == FIRST_CALL ? "first-call"
                                      : "lifecycle-demo");
        usage(stderr);
        return EXIT_USAGE;
    }
    L->device = (int)device;
    return -1;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's messages name the program as usage does */
    struct lesson L = {0};
    enum mode mode = LESSON;
    const char *child_arg = NULL;
    int rc = parse_options(argc, argv, &L, &mode, &child_arg);
    if (rc >= 0)
        return rc;
    if (mode == FAULT_DEMO)
        return fault_demo(L.device);
    if (mode == FIRST_CALL)
        return first_call_child(child_arg, L.device);
    if (mode == LIFECYCLE)
        return lifecycle_child(L.device);

    printf("01_hello_runtime: when does the CUDA runtime create a context?\n");
    step_0_environment();
    step_1_before_any_call();
    bool no_such_device = false, cannot_run = false;
    bool ok = step_2_first_runtime_call(&L, &no_such_device, &cannot_run) &&
              step_3_first_call_that_needs_a_context(&L) && step_4_versions(&L) &&
              step_5_check_macros_at_work(&L) && step_6_kernel_launched_from_c() &&
              step_7_context_belongs_to_a_thread(&L) && step_8_primary_context_lifecycle(&L);
    if (no_such_device)
        return EXIT_USAGE;
    if (cannot_run)
        return EXIT_CANNOT_RUN;
    printf("\n");
    return verdict(ok);
}
