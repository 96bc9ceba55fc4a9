/* status_not_reported: a variant for the grader's tests. */
#include "entry_point.h"

#if CUDA_VERSION >= 12050

bool get_mem_info(void **fn, enum cudaDriverEntryPointQueryResult *status)
{
    enum cudaDriverEntryPointQueryResult mine;
    *status = cudaDriverEntryPointSymbolNotFound; /* the result is not passed on */
    return checkRuntime(
        cudaGetDriverEntryPointByVersion("cuMemGetInfo", fn, 3020, cudaEnableDefault, &mine));
}

bool get_per_thread_copy(void **fn)
{
    enum cudaDriverEntryPointQueryResult status;
    return checkRuntime(cudaGetDriverEntryPointByVersion(
        "cuMemcpyAsync", fn, 12000, cudaEnablePerThreadDefaultStream, &status));
}

#endif
