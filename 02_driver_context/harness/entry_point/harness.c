/*
 * 02_driver_context/harness/entry_point - the grader's side of exercise entry_point: calls
 * get_mem_info() and get_per_thread_copy() (entry_point.c) and compares what they return with
 * the symbols libcuda.so.1 exports; calls cuMemGetInfo through the pointer and compares the
 * total with the runtime's; counts the student's calls of the runtime's entry-point query (the
 * linker's --wrap) and what each query returned: each function must ask the runtime, not look
 * the symbol up itself, and hand back the pointer and the status its query gave. Built with
 * CUDA older than 12.5 it reports "not_gradable" (the grader skips the exercise). It judges
 * nothing (grading/harness/exercise_harness.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "exercise_harness.h"
#include "entry_point.h"

#if CUDA_VERSION >= 12050
static int counting, queries;
/* What each counted query returned: the symbol asked for, the pointer and the status. */
enum { MAX_QUERIES = 16 };
static struct {
    char symbol[64];
    void *fn;
    bool has_status;
    enum cudaDriverEntryPointQueryResult status;
} seen[MAX_QUERIES];

cudaError_t __real_cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
                                                    unsigned int version, unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *status);
cudaError_t __wrap_cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
                                                    unsigned int version, unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *status)
{
    cudaError_t e = __real_cudaGetDriverEntryPointByVersion(symbol, fn, version, flags, status);
    if (counting && queries < MAX_QUERIES) {
        snprintf(seen[queries].symbol, sizeof seen[queries].symbol, "%s", symbol ? symbol : "");
        seen[queries].fn = fn ? *fn : NULL;
        seen[queries].has_status = status != NULL;
        seen[queries].status = status ? *status : cudaDriverEntryPointSymbolNotFound;
    }
    queries += counting;
    return e;
}

/* Where the pointer fn and the status came from: "query" when a query of `symbol` (counted
 * between first and last) returned that very pointer (and, with want_status, that status from
 * that query), else "other". */
static const char *source(const char *symbol, void *fn, int first, int last, bool want_status,
                          enum cudaDriverEntryPointQueryResult status)
{
    for (int i = first; i < last && i < MAX_QUERIES; i++)
        if (fn && seen[i].fn == fn && strcmp(seen[i].symbol, symbol) == 0 &&
            (!want_status || (seen[i].has_status && seen[i].status == status)))
            return "query";
    return "other";
}

typedef CUresult (*mem_info_fn)(size_t *free_b, size_t *total_b);
#endif

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise entry_point: calls get_mem_info() and get_per_thread_copy(), reports "
                  "what they returned.");
#if CUDA_VERSION < 12050
    /* Not gradable with this toolkit (the runtime's query by version came with CUDA 12.5): the
     * report says so, and the grader skips the exercise (not graded) instead of failing it. */
    fprintf(stderr, "%s: not gradable here: cudaGetDriverEntryPointByVersion needs CUDA 12.5+\n",
            lesson_prog);
    harness_report("not_gradable", "needs CUDA 12.5+ (this harness was built with CUDA %d.%d)",
                   CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    return harness_end(harness_seed_now(), true); /* the seed, asked only for "end SEED" */
#else
    if (!requireRuntime(cudaSetDevice(0)))
        return EXIT_CHECK;
    void *lib = driver_library_handle(); /* the libcuda.so.1 the runtime uses too */
    void *mem_info = NULL, *copy = NULL;
    enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (!lib)
        return EXIT_CHECK;
    struct harness_state state = harness_state_now(); /* the two calls leave all of it so */
    counting = 1;
    bool got = get_mem_info(&mem_info, &status);
    int mem_queries = queries;
    bool got2 = get_per_thread_copy(&copy);
    counting = 0;
    harness_state_check("entry_points", &state);
    harness_report("get_mem_info", "%s %s %s", got ? "true" : "false",
                   status == cudaDriverEntryPointSuccess ? "success" : "not-success",
                   !mem_info                                   ? "none"
                   : mem_info == dlsym(lib, "cuMemGetInfo_v2") ? "cuMemGetInfo_v2"
                                                               : "other");
    harness_report("get_per_thread_copy", "%s %s", got2 ? "true" : "false",
                   !copy                                      ? "none"
                   : copy == dlsym(lib, "cuMemcpyAsync_ptsz") ? "cuMemcpyAsync_ptsz"
                                                              : "other");
    harness_report("queries", "%d %d", mem_queries, queries - mem_queries);
    /* the pointers and the status handed back are the ones the queries returned */
    harness_report("sources", "%s %s %s",
                   source("cuMemGetInfo", mem_info, 0, mem_queries, false, status),
                   source("cuMemGetInfo", mem_info, 0, mem_queries, true, status),
                   source("cuMemcpyAsync", copy, mem_queries, queries, false, status));
    /* the function obtained against the runtime: the total, and the free memory beside two
     * control samples taken by the runtime just before and after */
    size_t f1 = 0, t1 = 0, f2 = 0, t2 = 0, f = 0, t = 0;
    if (mem_info && mem_info == dlsym(lib, "cuMemGetInfo_v2")) {
        bool called = checkRuntime(cudaMemGetInfo(&f1, &t1)) &&
                      ((mem_info_fn)mem_info)(&f, &t) == CUDA_SUCCESS &&
                      checkRuntime(cudaMemGetInfo(&f2, &t2));
        harness_report("total", "%s",
                       !called              ? "failed"
                       : t == t1 && t == t2 ? "same"
                                            : "different");
    } else {
        harness_report("total", "not called (not cuMemGetInfo_v2)");
    }
    return harness_end(harness_seed_now(), true); /* asked only now: no input comes from it */
#endif
}
