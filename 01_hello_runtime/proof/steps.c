/*
 * 01_hello_runtime/proof/steps.c - steps 1 to 7 of the output: each calls the lesson's functions
 * (core.c), watches what they did through the Driver API (cuCtxGetCurrent,
 * cuDevicePrimaryCtxGetState), prints it and checks its claims. Step 5c's child process
 * (fault_demo) is here too; step 2's table is in first_calls.c, step 8 in lifecycle.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"
#include "lesson.h"
#include "platform.h"

static const char *driver_error_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

/* ---- 1. before any CUDA call ------------------------------------------------------------ */

void step_1_before_any_call(void)
{
    printf("\n1. Before any CUDA call\n");
    struct context_view v;
    CUresult r = before_any_call(&v);    /* cuCtxGetCurrent, with a marker in its argument */
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuCtxGetCurrent(&ctx)", __FILE__, __LINE__);
    printf("   cuCtxGetCurrent(&ctx) -> %s (%d); ctx still holds our marker %p\n",
           driver_error_name(r), (int)r, (void *)v.current);
    printf("   (a common example prints \"(nil)\" here: it sets ctx to NULL and ignores the "
           "result)\n");
    claim(r == CUDA_ERROR_NOT_INITIALIZED && v.current == CONTEXT_MARKER,
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
bool step_2_first_runtime_call(struct lesson *L, bool *no_such_device, bool *cannot_run)
{
    printf("\n2. cudaGetDeviceCount: the runtime's first call\n");
    struct context_view v;
    cudaError_t err = after_first_runtime_call(L->device, &L->count, &v);
    char why[512];
    if (err == cudaErrorOperatingSystem && limit_behind(EMFILE, why, sizeof why))
        fprintf(stderr, "%s: the driver's call to the operating system failed; if files: %s\n",
                lesson_prog, why); /* a low `ulimit -n` shows so */
    /* no device visible, an old driver ... -> exit 77 */
    if (!require_runtime_(err, "cudaGetDeviceCount(&count)", __FILE__, __LINE__))
        return false;
    printf("   cudaGetDeviceCount -> %d device(s)\n", L->count);
    if (L->device >= L->count) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr,
                "%s: --device %d does not exist: this machine shows %d device(s), 0 to %d%s%s%s\n",
                lesson_prog, L->device, L->count, L->count - 1,
                visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "",
                visible ? " shows only those)" : "");
        *no_such_device = true;
        return false;
    }
    if (!v.seen || !checkDriver(cuDeviceGet(&L->cu_dev, L->device)))
        return false;
    printf("   cuCtxGetCurrent -> %s, ctx = %s\n", driver_error_name(v.query),
           v.current ? "not NULL" : "NULL");
    printf("   cuDevicePrimaryCtxGetState(device %d) -> active = %d\n", L->device, v.active);
    claim(v.query == CUDA_SUCCESS,
          "cudaGetDeviceCount initialised the driver (cuCtxGetCurrent now succeeds)");
    claim(v.current == NULL, "no context is current yet");
    claim(v.active == 0, "the primary context of device %d is not active yet", L->device);
    printf(
        "   (a widely copied explanation says most runtime calls need a context, so the first one "
        "creates it)\n");
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
static bool step_3_module_loading(const struct lesson *L)
{
    CUmoduleLoadingMode mode;
    struct versions v;
    if (!checkDriver(cuModuleGetLoadingMode(&mode)) || !read_versions(L->primary, &v))
        return false;
    const char *wanted = module_loading();
    bool lazy = mode == CU_MODULE_LAZY_LOADING;
    printf("   cuModuleGetLoadingMode     -> %s: %s\n", lazy ? "lazy" : "eager",
           lazy ? "each kernel is loaded at its first launch"
                : "every kernel was loaded with the context");
    if (!wanted) {
        if (lazy_loading_is_default(v.driver, v.runtime))
            claim(lazy, "CUDA_MODULE_LOADING is not set: loading is lazy, the default on Linux "
                        "from CUDA 12.2 (12.3 on Windows)");
        else
            not_judged("the runtime or the driver is older than CUDA 12.2, from which lazy "
                       "loading is the default",
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

/* A JIT variable (CUDA_FORCE_PTX_JIT, CUDA_DISABLE_PTX_JIT, ...) can leave the GPU no code of
 * this build it may take: then no kernel of the lesson can run. Exit 77, naming the variable. */
static void stop_if_jit_forbids(cudaError_t err, const char *call)
{
    const char *jit = jit_setting();
    bool no_code = err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidKernelImage ||
                   err == cudaErrorInvalidPtx || err == cudaErrorUnsupportedPtxVersion ||
                   err == cudaErrorJitCompilerNotFound || err == cudaErrorJitCompilationDisabled;
    if (!no_code || !jit)
        return;
    fflush(stdout);
    fprintf(stderr,
            "%s: cannot run here: %s: %s -> %s: the GPU cannot load this program's kernels in "
            "the form the variable allows.\n%s: unset it, or build for this GPU (make ARCH=NN, "
            "whose PTX the driver can JIT-compile).\n",
            lesson_prog, jit, call, cudaGetErrorName(err), lesson_prog);
    exit(EXIT_CANNOT_RUN);
}

/* Step 3's last look: the kernels load on this device (the launches of steps 5 and 6 need them). */
static bool step_3_kernels_load(void)
{
    cudaError_t err = kernels_load();
    stop_if_jit_forbids(err, "cudaFuncGetAttributes");
    if (jit_setting())
        printf("   %s: the kernels loaded all the same (cudaFuncGetAttributes -> %s)\n",
               jit_setting(), cudaGetErrorName(err));
    return checkRuntime(err);
}

bool step_3_first_call_that_needs_a_context(struct lesson *L)
{
    printf("\n3. cudaSetDevice(%d): the first call that needs a context\n", L->device);
    struct context_view v;
    CUcontext retained = NULL;
    /* the first context: where another process holds an EXCLUSIVE_PROCESS GPU, exit 77 */
    cudaError_t err = after_first_call_that_needs_a_context(L->device, &v, &retained);
    stop_if_jit_forbids(err, "cudaSetDevice");
    if (!require_runtime_(err, "cudaSetDevice(device)", __FILE__, __LINE__) || !v.seen ||
        !checkRuntime(cudaGetDeviceProperties(&L->prop, L->device)))
        return false;
    L->primary = v.current;
    int active = v.active;
    double set_ms = v.call_ms;
    printf("   device %d: \"%s\", compute capability %d.%d\n", L->device, L->prop.name,
           L->prop.major, L->prop.minor);
    printf("   cudaSetDevice took %.1f ms (it created the context: the cost of the first call)\n",
           set_ms);
    if (module_loading() && strcmp(module_loading(), "EAGER") == 0)
        printf("   (CUDA_MODULE_LOADING=EAGER: that time includes loading every kernel of this "
               "program into the new context)\n");
    printf("   cuCtxGetCurrent            -> %p\n", (void *)L->primary);
    printf("   cuDevicePrimaryCtxRetain   -> %p\n", (void *)retained);
    printf("   cuDevicePrimaryCtxGetState -> active = %d\n", active);
    claim(L->primary != NULL, "cudaSetDevice made a context current");
    claim(L->primary == retained,
          "it is the device's primary context, the one cuDevicePrimaryCtxRetain returns");
    claim(active == 1, "the primary context is now active");
    return step_3_module_loading(L) && step_3_kernels_load();
}

/* ---- 4. versions ------------------------------------------------------------------------ */

static void print_version(const char *call, int v, const char *what)
{
    printf("   %-21s -> %d.%d: %s\n", call, v / 1000, v % 1000 / 10, what);
}

bool step_4_versions(const struct lesson *L)
{
    printf("\n4. Versions\n");
    struct versions v;
    if (!read_versions(L->primary, &v))
        return false;
    int runtime_version = v.runtime, driver_version = v.driver;
    unsigned int api_primary = v.api_primary, api_current = v.api_current;
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

/* Step 5a's call, the one CUDA call of the lesson made outside core.c (core.c says why):
 * checkRuntime's report on stderr goes through a pipe, is kept in report (one short line, far
 * less than a pipe holds) and then printed on stderr as usual; *line is the line of the call. */
static bool invalid_call_reported(int invalid, char *report, size_t len, int *line)
{
    int fds[2];
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    if (saved < 0 || pipe(fds) != 0) {
        perror("step 5a: dup or pipe");
        if (saved >= 0)
            close(saved);
        return false;
    }
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    *line = __LINE__ + 1;
    bool reported = !checkRuntime(cudaSetDevice(invalid));
    fflush(stderr);
    dup2(saved, STDERR_FILENO); /* the pipe's last writer is gone: read sees its end */
    close(saved);
    size_t got = 0;
    ssize_t n;
    while (got < len - 1 && (n = read(fds[0], report + got, len - 1 - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    report[got] = '\0';
    fputs(report, stderr);
    return reported;
}

/* Does a line of text begin with prefix and go on after it (the error's message)? */
static bool line_begins(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, n) == 0 && p[n] != '\n' && p[n] != '\0')
            return true;
    return false;
}

static bool step_5a_invalid_call(const struct lesson *L)
{
    printf("   a) an invalid call: cudaSetDevice(%d), one past the last device\n", L->count);
    char report[512], want[256];
    int line = 0;
    bool reported = invalid_call_reported(L->count, report, sizeof report, &line);
    cudaError_t last = cudaGetLastError(); /* any failed runtime call also sets "last error" */
    int still = -1;
    if (!checkRuntime(cudaGetDevice(&still)))
        return false;
    printf("   cudaGetLastError() -> %s (%d), and reading it cleared it\n", cudaGetErrorName(last),
           (int)last);
    /* what check_runtime_ prints: "file:line: call failed: NAME (number): message" */
    snprintf(want, sizeof want, "%s:%d: cudaSetDevice(invalid) failed: %s (%d): ", __FILE__, line,
             cudaGetErrorName(cudaErrorInvalidDevice), (int)cudaErrorInvalidDevice);
    claim(reported && last == cudaErrorInvalidDevice && line_begins(report, want),
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
    launch_add_one(dev_data, N, 2048); /* a launch returns nothing: ask for its error */
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
int fault_demo(int device)
{
    remove_fault_handling(); /* before the first CUDA call: no debugger wait, no core dump */
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
    launch_trap(); /* __trap(): the kernel faults on purpose */
    cudaError_t at_launch = cudaGetLastError();
    double launch_ms = host_ms() - t0;
    cudaError_t at_sync, afterwards;
    calls_after_a_fault(&at_sync, &afterwards);
    printf("   [child] the launch returned after %.1f ms\n", launch_ms);
    printf("   [child] cudaGetLastError() right after the launch -> %s\n",
           cudaGetErrorName(at_launch));
    printf("   [child] cudaDeviceSynchronize()                  -> %s (%d)\n",
           cudaGetErrorName(at_sync), (int)at_sync);
    printf("   [child] cudaMalloc() afterwards                  -> %s: the error is sticky\n",
           cudaGetErrorName(afterwards));
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
    char names[160];
    if (fault_handling_set(names, sizeof names))
        printf("      (%s: removed in these two children, whose fault is on purpose)\n", names);
    remove_fault_handling(); /* from the environment the children inherit (this process's driver
                                read it when it initialised: nothing changes here) */
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

bool step_5_check_macros_at_work(struct lesson *L)
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
    /* the first launch loads the kernel (lazy loading), outside the measurement */
    launch_spin(1000);
    if (!checkRuntime(cudaGetLastError()) || !checkRuntime(cudaDeviceSynchronize()))
        return false;
    double t0 = host_ms();
    launch_spin(spin_ns);
    cudaError_t launched = cudaGetLastError();
    double launch_ms = host_ms() - t0;
    cudaError_t query = cudaStreamQuery(NULL);
    double t1 = host_ms();
    if (!checkRuntime(launched) || !checkRuntime(cudaDeviceSynchronize()))
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

bool step_6_kernel_launched_from_c(void)
{
    printf("\n6. The usual first kernel (add one to every element), launched from C through an "
           "extern \"C\" launcher\n");
    enum { N = 1 << 20 };
    float *host = malloc(N * sizeof(float));
    if (!host) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    for (int i = 0; i < N; i++)
        host[i] = (float)(i % 1000) - 500.0f;
    bool ok = add_one_on_device(host, N, 256);
    if (ok) {
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += host[i] != (float)(i % 1000) - 500.0f + 1.0f;
        printf("   add_one<<<%d, 256>>> on %d floats: %d wrong\n", (N + 255) / 256, N, wrong);
        claim(wrong == 0, "every element came back one larger");
        ok = step_6_launch_returns_at_once();
    }
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

bool step_7_context_belongs_to_a_thread(const struct lesson *L)
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
