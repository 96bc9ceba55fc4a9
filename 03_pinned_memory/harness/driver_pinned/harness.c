/*
 * 03_pinned_memory/harness/driver_pinned - the grader's side of exercise driver_pinned: gets a
 * buffer of an odd size from alloc_host() (driver_pinned.c), asks the driver what it knows of it
 * (cuMemHostGetFlags), times copies from it against a pageable and a cudaMallocHost buffer (its
 * own events, taking turns), sends fresh data through it, gives it to free_host() and asks the
 * driver again; counts the student's host-allocation calls, Driver API and runtime (the
 * linker's --wrap) and, through the stand-in driver, what they made and left, whatever API made
 * it (the judge's --fail-at N makes their Nth driver call fail). It judges nothing
 * (grading/harness/exercise_harness.h).
 */
#include "03_harness.h"
#include "driver_pinned.h"
#include "harness_watch.h"

/* alloc_host() makes one page-locked buffer, nothing else of host memory (a registration of
 * its own is a second lock). Modules and libraries are not judged: the runtime's lazy loading
 * (harness_watch_take_lazy). */
static const bool once[DRIVER_WATCH_KINDS] = {
    [DRIVER_WATCH_PINNED] = true, [DRIVER_WATCH_REGISTERED] = true};

static int counting, driver_allocs, driver_frees, runtime_calls;

/* An allocation of the student's that fails leaves a poisoned pointer behind (the API promises
 * nothing of *p then): code that does not check the result returns it as if it were memory. */
#define POISONED ((void *)(uintptr_t)0x7f7f7000)
static void *poison_on_failure(bool failed, void *p)
{
    return counting && failed ? POISONED : p;
}

CUresult __real_cuMemHostAlloc(void **p, size_t bytes, unsigned int flags);
CUresult __wrap_cuMemHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    driver_allocs += counting;
    CUresult r = __real_cuMemHostAlloc(p, bytes, flags);
    *p = poison_on_failure(r != CUDA_SUCCESS, *p);
    return r;
}
CUresult __real_cuMemFreeHost(void *p);
CUresult __wrap_cuMemFreeHost(void *p)
{
    driver_frees += counting;
    return __real_cuMemFreeHost(p);
}
cudaError_t __real_cudaMallocHost(void **p, size_t bytes);
cudaError_t __wrap_cudaMallocHost(void **p, size_t bytes)
{
    runtime_calls += counting;
    cudaError_t e = __real_cudaMallocHost(p, bytes);
    *p = poison_on_failure(e != cudaSuccess, *p);
    return e;
}
cudaError_t __real_cudaHostAlloc(void **p, size_t bytes, unsigned int flags);
cudaError_t __wrap_cudaHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    runtime_calls += counting;
    cudaError_t e = __real_cudaHostAlloc(p, bytes, flags);
    *p = poison_on_failure(e != cudaSuccess, *p);
    return e;
}
cudaError_t __real_cudaFreeHost(void *p);
cudaError_t __wrap_cudaFreeHost(void *p)
{
    runtime_calls += counting;
    return __real_cudaFreeHost(p);
}

/* What the driver knows of p: "flags F" (cuMemHostGetFlags), or "unknown". */
static void driver_view(const char *key, void *p)
{
    unsigned int flags = 0;
    if (cuMemHostGetFlags(&flags, p) == CUDA_SUCCESS)
        harness_report(key, "flags %u", flags);
    else
        harness_report(key, "unknown");
}

/* The judge's --fail-at N: the Nth watched call from alloc_host() on fails, in alloc_host() or
 * in free_host(); the one that saw it must answer so (NULL, false: memory that is not
 * page-locked is no answer), and nothing may be left ("fail_in alloc_host|free_host|none",
 * "fail_came", "resources_fail"). Then the end. */
static int failure_run(size_t bytes, long n, uint32_t seed)
{
    struct harness_watch w = harness_watch_take_lazy();
    harness_watch_fail_at(n);
    counting = 1;
    void *data = alloc_host(bytes);
    bool in_alloc = harness_watch_failed(), given = data && data != POISONED;
    bool freed = given && !in_alloc && free_host(data);
    counting = 0;
    bool came = harness_watch_judge();
    harness_report("fail_in", "%s", in_alloc ? "alloc_host" : came ? "free_host" : "none");
    harness_report("alloc_host", "%s", data ? "given" : "NULL");
    harness_report("free_host", "%s", freed ? "true" : "false");
    harness_watch_check("fail", &w, once);
    return harness_end(seed, true);
}

/* The driver's view of the buffer, its rates and data through it (the harness's own). */
static bool own_copies(float *data, size_t n, uint32_t seed)
{
    driver_view("driver", data);
    return compare_rates(data, n * sizeof(float)) && data_case("case0", data, n, seed, 0);
}

/* "NULL when it cannot be had": 4 EiB of page-locked memory (more than any machine has) */
static void too_big(void)
{
    counting = 1;
    void *huge = alloc_host((size_t)1 << 62);
    counting = 0;
    harness_report("too_big", "%s", huge ? "given" : "NULL");
    if (huge && huge != POISONED)
        (void)free_host(huge);
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long fail_at = harness_watch_fail_arg(&argc, argv);
    harness_start(argc, argv,
                  "Exercise driver_pinned: alloc_host() and free_host(), the driver's view of the "
                  "buffer and its copy rate.");
    if (!requireRuntime(cudaSetDevice(0)) || !checkRuntime(cudaFree(NULL)))
        return EXIT_CHECK;
    /* asked before alloc_host(): the size you are asked for comes from it */
    uint32_t seed = harness_seed_now();
    size_t n = ((size_t)16 << 20) + seed % 65536, bytes = n * sizeof(float);
    struct harness_state state; /* alloc_host() and free_host() leave all of it as they found it */
    if (fail_at)
        return failure_run(bytes, fail_at, seed);
    harness_state_take(&state);
    struct harness_watch w = harness_watch_take_lazy(); /* from alloc_host() to free_host() */
    counting = 1;
    float *data = alloc_host(bytes);
    counting = 0;
    harness_report("alloc_host", "%s", data ? "given" : "NULL");
    harness_state_check("alloc_host", &state);
    if (!data)
        return harness_end(seed, true);
    harness_watch_pause(&w); /* the harness's own buffers, streams and events */
    bool ok = own_copies(data, n, seed);
    harness_watch_resume(&w);
    counting = 1;
    bool freed = free_host(data);
    counting = 0;
    harness_report("free_host", "%s", freed ? "true" : "false");
    harness_state_check("free_host", &state);
    driver_view("after_free", data);
    harness_report("calls", "%d %d %d", driver_allocs, driver_frees, runtime_calls);
    harness_watch_check("driver_pinned", &w, once);
    too_big();
    return harness_end(seed, ok);
}
