/*
 * 01_hello_runtime/harness/check_launch - the grader's side of exercise check_launch: it calls
 * scale_on_device() (exercises/check_launch/check_launch.c) on fresh data of several sizes and
 * block sizes, then on launches that fail (2048 threads per block; a launch the harness makes
 * fail), and reports the results, the device allocations left and the copies back after a
 * failed launch (the student's cudaMalloc, cudaFree and cudaMemcpy calls are counted through
 * the linker's --wrap). It judges nothing (grading/harness/exercise_harness.h).
 */
#include <stdlib.h>

#include "exercise_harness.h"
#include "check_launch.h"

extern int harness_sabotage, harness_launches;
extern cudaError_t harness_launch_error;
static int live_allocs, copies_back, launch_reports;

/* checkRuntime (common/check.h) is counted too: the failed launch counts as reported when the
 * student's code handed checkRuntime the very error the launch left (what happened, not a text
 * on stderr: a message printed by hand does not count). */
bool __real_check_runtime_(cudaError_t err, const char *call, const char *file, int line);
bool __wrap_check_runtime_(cudaError_t err, const char *call, const char *file, int line)
{
    launch_reports += harness_launches > 0 && err != cudaSuccess && err == harness_launch_error;
    return __real_check_runtime_(err, call, file, line);
}

cudaError_t __real_cudaMalloc(void **p, size_t bytes);
cudaError_t __real_cudaFree(void *p);
cudaError_t __real_cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);

cudaError_t __wrap_cudaMalloc(void **p, size_t bytes)
{
    cudaError_t e = __real_cudaMalloc(p, bytes);
    live_allocs += e == cudaSuccess;
    return e;
}

cudaError_t __wrap_cudaFree(void *p)
{
    cudaError_t e = __real_cudaFree(p);
    live_allocs -= e == cudaSuccess && p != NULL;
    return e;
}

cudaError_t __wrap_cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    if (harness_launches > 0 && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDefault))
        copies_back++;
    return __real_cudaMemcpy(dst, src, bytes, kind);
}

/* A launch that works: "caseK N SUM" (the sum of the results) or "caseK failed". */
static bool good_case(uint32_t seed, int k, int n, int threads)
{
    /* host[] ends where a page that cannot be touched begins: a copy past its n floats (a
     * size rounded up to whole blocks) stops the program */
    float *v = harness_guarded((size_t)n * sizeof(float));
    if (!v)
        return false;
    harness_fill(v, (size_t)n, seed, k);
    harness_sabotage = 0;
    bool ok = scale_on_device(v, n, 2.0f, threads);
    harness_case(k, ok, v, (size_t)n, "failed");
    return true;
}

/* A launch that fails: "badJ RETURNED COPIES_BACK_AFTER_THE_LAUNCH ALLOCATIONS_LEFT REPORTED"
 * (REPORTED: 1 when checkRuntime was given the launch's own error after the launch). */
static bool bad_case(uint32_t seed, int j, int n, int threads, int sabotage)
{
    float *v = harness_guarded((size_t)n * sizeof(float)); /* see good_case */
    if (!v)
        return false;
    harness_fill(v, (size_t)n, seed, 10 + j);
    int live = live_allocs;
    harness_sabotage = sabotage;
    harness_launches = 0;
    harness_launch_error = cudaSuccess;
    copies_back = 0;
    launch_reports = 0;
    bool ok = scale_on_device(v, n, 2.0f, threads);
    harness_sabotage = 0;
    harness_launches = 0;
    char key[16];
    snprintf(key, sizeof key, "bad%d", j);
    harness_report(key, "%s %d %d %d", ok ? "true" : "false", copies_back, live_allocs - live,
                   launch_reports > 0);
    /* "host[] left alone": the data as it was given */
    float *given = malloc((size_t)n * sizeof(float));
    bool same = false;
    if (given) {
        harness_fill(given, (size_t)n, seed, 10 + j);
        same = memcmp(given, v, (size_t)n * sizeof(float)) == 0;
        free(given);
    }
    snprintf(key, sizeof key, "bad%d_host", j);
    harness_report(key, "%s", same ? "untouched" : "changed");
    (void)cudaGetLastError(); /* whatever the student left pending, the next case starts clean */
    return true;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise check_launch: calls scale_on_device() on good and failing launches, "
                  "reports what it saw.");
    if (!requireRuntime(cudaSetDevice(0)))
        return EXIT_CHECK;
    uint32_t seed = harness_seed_now(); /* each case's data is made from it before your call */
    /* scale_on_device() leaves the context, the primary context and the device as it found
     * them (checked once, after all its calls: a reset or another device set in any shows) */
    struct harness_state state;
    harness_state_take(&state);
    bool ok = good_case(seed, 0, 1 << 16, 256) &&
              good_case(seed, 1, 1000 + (int)(seed % 4096), 96) && good_case(seed, 2, 4097, 1024) &&
              bad_case(seed, 0, 5000, 2048, 0) && bad_case(seed, 1, 5000, 256, 1) &&
              good_case(seed, 3, 3001 + (int)(seed % 1000), 128);
    /* every device allocation of the student's code, whatever the path (a buffer kept in a
     * static for the next call included), must be freed by the end of the run */
    harness_report("allocations_left", "%d", live_allocs);
    harness_state_check("scale_on_device", &state);
    return harness_end(seed, ok);
}
