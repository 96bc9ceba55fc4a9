/*
 * 02_driver_context/harness/share_primary - the grader's side of exercise share_primary: the
 * application (runtime: cudaSetDevice) around the library's library_begin() and library_end()
 * (library.c); between them the harness, playing the library's work, allocates a buffer in the
 * current context and fills it with fresh data. Reports the library's context, the buffer's
 * owner, the stack after library_end(), the data the application reads back with the runtime,
 * and the references to the primary context left. It judges nothing (common/exercise_harness.h).
 */
#include <stdint.h>

#include "02_harness.h"
#include "made_contexts.h" /* the library's contexts left: made_count */
#include "share_primary.h"

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    uint32_t seed = harness_seed(argc, argv,
                                 "Exercise share_primary: calls library_begin() and "
                                 "library_end() around a buffer, reports what is left.");
    made_counting = 1; /* every context made from here on is the library's */
    CUdevice dev;
    CUcontext app = NULL, lib = NULL, current = NULL;
    const char *const names[1] = {"runtime"};
    CUdeviceptr buf = 0;
    char stack[256];
    size_t n = 1000 + seed % 8192, bytes = n * sizeof(float);
    if (!requireRuntime(cudaSetDevice(0)) || !checkDriver(cuCtxGetCurrent(&app)) ||
        !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;
    bool ok = library_begin(dev, &lib);
    harness_report("library_begin", "%s", ok ? "true" : "false");
    (void)cuCtxGetCurrent(&current);
    harness_report("library_context", "%s %s",
                   !lib         ? "none"
                   : lib == app ? "runtime"
                                : "other",
                   !current         ? "none"
                   : current == app ? "runtime"
                                    : "other");
    bool made = ok && cuMemAlloc(&buf, bytes) == CUDA_SUCCESS;
    float *v = malloc(bytes);
    if (made && v) {
        harness_fill(v, n, seed, 0);
        made = cuMemcpyHtoD(buf, v, bytes) == CUDA_SUCCESS;
    }
    harness_report("buffer_owner", "%s", made ? owner_name(buf, &app, names, 1) : "none");
    ok = library_end(dev, lib);
    harness_report("library_end", "%s", ok ? "true" : "false");
    stack_names(stack, sizeof stack, &app, names, 1);
    harness_report("stack", "%s", stack);
    /* the application reads the library's buffer with the runtime */
    if (made && v) {
        for (size_t i = 0; i < n; i++)
            v[i] = -1;
        cudaError_t e = cudaMemcpy(v, (void *)(uintptr_t)buf, bytes, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            harness_report("case0", "%zu %.1f", n, harness_sum(v, n));
        else
            harness_report("case0", "lost (%s)", cudaGetErrorName(e));
        (void)cudaGetLastError();
        (void)cudaFree((void *)(uintptr_t)buf);
    }
    free(v);
    harness_report("contexts_left", "%d", made_count);
    harness_report("refs_beyond_runtime", "%d", harness_primary_refs_beyond_runtime(dev));
    return harness_end(seed, true);
}
