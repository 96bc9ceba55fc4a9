/*
 * Exercise 4 - entry_point (reference solution): reach the Driver API from a runtime program through the runtime.
 *
 * The application uses the runtime (cudaSetDevice, cudaMemGetInfo). It wants two Driver API
 * functions, and asks the runtime for them with cudaGetDriverEntryPointByVersion (CUDA 12.5)
 * instead of linking -lcuda. As given, it asks for nothing, so it has no function to call.
 * TODO 1 (get_mem_info): get "cuMemGetInfo" in its size_t form, the one CUDA 3.2 brought
 *        (cudaVersion 3020), with the default flag; check the call, and report the query
 *        result it gives back (its last argument).
 * TODO 2 (get_per_thread_copy): get the per-thread-default-stream variant of "cuMemcpyAsync"
 *        (cudaVersion 12000): pick the flag that asks for it. Check the call.
 * main() then compares what you got with the symbols libcuda.so.1 exports (dlsym).
 * Grade it: make check   (from 02_driver_context/)
 */
#include <dlfcn.h>
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

#if CUDA_VERSION >= 12050

typedef CUresult(CUDAAPI *mem_info_fn)(size_t *free_b, size_t *total_b);

/* Puts the address of cuMemGetInfo (the CUDA 3.2 ABI) in *fn and the query result in *status. */
static bool get_mem_info(void **fn, enum cudaDriverEntryPointQueryResult *status)
{
    return checkRuntime(cudaGetDriverEntryPointByVersion("cuMemGetInfo", fn, 3020,
                                                         cudaEnableDefault, status));
}

/* Puts the address of the per-thread-default-stream cuMemcpyAsync in *fn. */
static bool get_per_thread_copy(void **fn)
{
    enum cudaDriverEntryPointQueryResult status;
    return checkRuntime(cudaGetDriverEntryPointByVersion("cuMemcpyAsync", fn, 12000,
                                                         cudaEnablePerThreadDefaultStream, &status));
}

#endif

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
#if CUDA_VERSION < 12050
    printf("cudaGetDriverEntryPointByVersion needs CUDA 12.5 headers or newer\n");
    return EXIT_CANNOT_RUN;
#else
    if (!requireRuntime(cudaSetDevice(0)))
        return EXIT_CHECK;
    void *lib = driver_library_handle(); /* the libcuda.so.1 the runtime uses too */
    void *mem_info = NULL, *copy = NULL;
    enum cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (!lib || !get_mem_info(&mem_info, &status) || !get_per_thread_copy(&copy))
        return EXIT_CHECK;

    printf("cuMemGetInfo entry point: %s (%s)\n", mem_info ? "found" : "not found",
           status == cudaDriverEntryPointSuccess ? "cudaDriverEntryPointSuccess" : "not success");
    printf("cuMemGetInfo is libcuda's cuMemGetInfo_v2: %s\n",
           mem_info && mem_info == dlsym(lib, "cuMemGetInfo_v2") ? "yes" : "no");
    size_t free_rt = 0, total_rt = 0, free_drv = 0, total_drv = 0;
    if (!checkRuntime(cudaMemGetInfo(&free_rt, &total_rt)))
        return EXIT_CHECK;
    if (mem_info && !checkDriver(((mem_info_fn)mem_info)(&free_drv, &total_drv)))
        return EXIT_CHECK;
    printf("total device memory, driver vs runtime: %s\n",
           !mem_info ? "not compared (no function)" : total_drv == total_rt ? "the same" : "different");
    printf("per-thread cuMemcpyAsync is libcuda's cuMemcpyAsync_ptsz: %s\n",
           copy && copy == dlsym(lib, "cuMemcpyAsync_ptsz") ? "yes" : "no");
    return EXIT_OK;
#endif
}
