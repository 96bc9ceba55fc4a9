/*
 * 03_pinned_memory/harness/driver_pinned - the grader's side of exercise driver_pinned: gets a
 * buffer of an odd size from alloc_host() (driver_pinned.c), asks the driver what it knows of it
 * (cuMemHostGetFlags), times copies from it against a pageable and a cudaMallocHost buffer (its
 * own events, taking turns), sends fresh data through it, gives it to free_host() and asks the
 * driver again; counts the student's host-allocation calls, Driver API and runtime (the
 * linker's --wrap). It judges nothing (grading/harness/exercise_harness.h).
 */
#include "03_harness.h"
#include "driver_pinned.h"

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

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise driver_pinned: alloc_host() and free_host(), the driver's view of the "
                  "buffer and its copy rate.");
    if (!requireRuntime(cudaSetDevice(0)) || !checkRuntime(cudaFree(NULL)))
        return EXIT_CHECK;
    /* asked before alloc_host(): the size you are asked for comes from it */
    uint32_t seed = harness_seed_now();
    size_t n = ((size_t)16 << 20) + seed % 65536, bytes = n * sizeof(float);
    struct harness_state state; /* alloc_host() and free_host() leave all of it as they found it */
    harness_state_take(&state);
    counting = 1;
    float *data = alloc_host(bytes);
    counting = 0;
    harness_report("alloc_host", "%s", data ? "given" : "NULL");
    harness_state_check("alloc_host", &state);
    if (!data)
        return harness_end(seed, true);
    driver_view("driver", data);
    bool ok = compare_rates(data, bytes) && data_case("case0", data, n, seed, 0);
    counting = 1;
    bool freed = free_host(data);
    counting = 0;
    harness_report("free_host", "%s", freed ? "true" : "false");
    harness_state_check("free_host", &state);
    driver_view("after_free", data);
    harness_report("calls", "%d %d %d", driver_allocs, driver_frees, runtime_calls);
    /* "NULL when it cannot be had": 4 EiB of page-locked memory (more than any machine has) */
    counting = 1;
    void *huge = alloc_host((size_t)1 << 62);
    counting = 0;
    harness_report("too_big", "%s", huge ? "given" : "NULL");
    if (huge && huge != POISONED)
        (void)free_host(huge);
    return harness_end(seed, ok);
}
