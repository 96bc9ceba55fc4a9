/*
 * Exercise 4 - entry_point: reach the Driver API from a runtime program through the runtime.
 *
 * This file is yours (the only one graded). The application (the harness,
 * harness/entry_point/) uses the runtime. It wants two Driver API functions, and asks the
 * runtime for them with cudaGetDriverEntryPointByVersion (CUDA 12.5) instead of linking -lcuda.
 * As given, get_mem_info() asks for nothing, and get_per_thread_copy() asks for the wrong
 * variant.
 * FIXME 1 (get_mem_info): get "cuMemGetInfo" in its size_t form, the one CUDA 3.2 brought
 *        (cudaVersion 3020), with the default flag; check the call, and report the query
 *        result it gives back (its last argument).
 * FIXME 2 (get_per_thread_copy): get the per-thread-default-stream variant of "cuMemcpyAsync"
 *        (cudaVersion 12000): pick the flag that asks for it. Check the call.
 * The harness compares what you got with the symbols libcuda.so.1 exports, calls cuMemGetInfo
 * through your pointer, counts your calls of the runtime's query and checks that the pointers
 * and the query result you hand back are the ones it returned (looking the symbols up yourself
 * with dlsym is not the exercise: the grader refuses it). Built with a CUDA older than 12.5,
 * this exercise is not graded.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "entry_point.h"

#if CUDA_VERSION >= 12050

bool get_mem_info(void **fn, enum cudaDriverEntryPointQueryResult *status)
{
    /* FIXME 1: replace these two lines. */
    *fn = NULL;
    *status = cudaDriverEntryPointSymbolNotFound;
    return true;
}

bool get_per_thread_copy(void **fn)
{
    enum cudaDriverEntryPointQueryResult status;
    /* FIXME 2: ask for the per-thread variant: the flag below asks for the legacy one. */
    return checkRuntime(cudaGetDriverEntryPointByVersion("cuMemcpyAsync", fn, 12000,
                                                         cudaEnableLegacyStream, &status));
}

#endif
