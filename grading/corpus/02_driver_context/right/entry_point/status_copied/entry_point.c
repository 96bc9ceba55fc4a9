/* status_copied: a variant for the grader's tests (a correct alternative). */
#include "entry_point.h"

#if CUDA_VERSION >= 12050

bool get_mem_info(void **fn, enum cudaDriverEntryPointQueryResult *status)
{
    /* the pointer and the status through variables of its own, then handed back */
    void *got = NULL;
    enum cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
    bool ok = checkRuntime(
        cudaGetDriverEntryPointByVersion("cuMemGetInfo", &got, 3020, cudaEnableDefault, &result));
    *fn = got;
    *status = result;
    return ok;
}

bool get_per_thread_copy(void **fn)
{
    enum cudaDriverEntryPointQueryResult status;
    return checkRuntime(cudaGetDriverEntryPointByVersion(
        "cuMemcpyAsync", fn, 12000, cudaEnablePerThreadDefaultStream, &status));
}

#endif
