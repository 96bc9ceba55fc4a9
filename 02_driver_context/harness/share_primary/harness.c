/*
 * 02_driver_context/harness/share_primary - the grader's side of exercise share_primary: the
 * application (runtime: cudaSetDevice) around the library's library_begin() and library_end()
 * (library.c); between them the harness, playing the library's work, allocates a buffer in the
 * current context and fills it with fresh data. Reports the library's context, the buffer's
 * owner, the stack after library_end(), the data the application reads back with the runtime,
 * whether the library held a reference of its own while it worked (it borrowed none), and the
 * references to the primary context left. It judges nothing (grading/harness/exercise_harness.h).
 */
#include <stdint.h>

#include "02_harness.h"
#include "made_contexts.h" /* the library's contexts left: made_count */
#include "share_primary.h"

/* Whether the library holds a reference of its own to the primary context while it works:
 * the harness gives one reference back, asks the driver whether the context is still active,
 * and takes it again. A library that borrowed the current context holds none: the release then
 * ends the context (that run is lost anyway). */
static const char *library_reference(CUdevice dev)
{
    unsigned int flags = 0;
    int active = 0;
    CUcontext again = NULL;
    if (cuDevicePrimaryCtxRelease(dev) != CUDA_SUCCESS)
        return "unknown";
    (void)cuDevicePrimaryCtxGetState(dev, &flags, &active);
    (void)cuDevicePrimaryCtxRetain(&again, dev);
    return active ? "held" : "none";
}

/* The library's work, played by the harness: n floats of case 0 in a buffer of the current
 * context (*buf; 0 when it could not be made), its owner reported. */
static bool library_work(CUdeviceptr *buf, float *v, size_t n, uint32_t seed, CUcontext *app)
{
    const char *const names[1] = {"runtime"};
    bool made = v && cuMemAlloc(buf, n * sizeof(float)) == CUDA_SUCCESS;
    if (made) {
        harness_fill(v, n, seed, 0);
        made = cuMemcpyHtoD(*buf, v, n * sizeof(float)) == CUDA_SUCCESS;
    }
    harness_report("buffer_owner", "%s", made ? owner_name(*buf, app, names, 1) : "none");
    return made;
}

/* The application reads the library's buffer with the runtime: "case0 N SUM" or lost. */
static void application_reads(CUdeviceptr buf, float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = -1;
    cudaError_t e =
        cudaMemcpy(v, (void *)(uintptr_t)buf, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        harness_report("case0", "%zu %.1f", n, harness_sum(v, n));
    else
        harness_report("case0", "lost (%s)", cudaGetErrorName(e));
    (void)cudaGetLastError();
    (void)cudaFree((void *)(uintptr_t)buf);
}

static const char *runtime_or_other(CUcontext c, CUcontext app)
{
    return !c ? "none" : c == app ? "runtime" : "other";
}

/* The application: the runtime on the last device (the library works on the device it is
 * given, not on device 0), its primary context *app, and a context of its own (*own) current
 * above it when it calls the library. False: a call failed. */
static bool application(CUdevice *dev, CUcontext *app, CUcontext *own)
{
    int last = 0, count = 0;
    return requireRuntime(cudaGetDeviceCount(&count)) && last_device(dev, &last) &&
           checkRuntime(cudaSetDevice(last)) && checkDriver(cuCtxGetCurrent(app)) &&
           make_context(own, *dev);
}

/* "state_library_begin kept" when library_begin() made the primary context app current over
 * the state before (pushed, or set in place of the current one) and changed nothing else. */
static void begin_state(const struct harness_state *before, CUcontext app)
{
    char what[512], also[512];
    struct harness_state got = harness_state_now(), pushed = *before, set = *before;
    harness_state_push(&pushed, app);
    harness_state_set_top(&set, app);
    harness_state_differs(&pushed, &got, what, sizeof what);
    harness_state_differs(&set, &got, also, sizeof also);
    if (!what[0] || !also[0])
        harness_report("state_library_begin", "kept");
    else
        harness_report("state_library_begin", "changed: %s", what);
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise share_primary: calls library_begin() and library_end() around a "
                  "buffer, reports what is left.");
    CUdevice dev;
    CUcontext app = NULL, lib = NULL, current = NULL, own = NULL;
    const char *const names[1] = {"runtime"};
    CUdeviceptr buf = 0;
    char stack[256];
    if (!application(&dev, &app, &own))
        return EXIT_CHECK;
    struct harness_state state = harness_state_now(); /* library_end() leaves all of it so */
    made_counting = 1; /* every context made from here on is the library's */
    bool ok = library_begin(dev, &lib);
    harness_report("library_begin", "%s", ok ? "true" : "false");
    begin_state(&state, app);
    (void)cuCtxGetCurrent(&current);
    harness_report("library_context", "%s %s", runtime_or_other(lib, app),
                   runtime_or_other(current, app));
    harness_report("library_reference", "%s", ok ? library_reference(dev) : "none");
    /* asked after library_begin(), before library_end(): the library's buffer (its size and
     * data) is made between the two */
    uint32_t seed = harness_seed_now();
    size_t n = 1000 + seed % 8192;
    float *v = malloc(n * sizeof(float));
    bool made = ok && library_work(&buf, v, n, seed, &app);
    harness_report("library_end", "%s", library_end(dev, lib) ? "true" : "false");
    harness_state_check("library_end", &state);
    harness_own_context_end(own); /* not the library's: made_count stays as it is */
    stack_names(stack, sizeof stack, &app, names, 1);
    harness_report("stack", "%s", stack);
    if (made)
        application_reads(buf, v, n);
    free(v);
    harness_report("contexts_left", "%d", made_count);
    harness_report("refs_beyond_runtime", "%d", harness_primary_refs_beyond_runtime(dev));
    return harness_end(seed, true);
}
