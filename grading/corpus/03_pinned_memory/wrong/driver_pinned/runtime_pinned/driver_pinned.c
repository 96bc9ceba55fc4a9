/* Wrong: the runtime's cudaMallocHost, not the Driver API. */
#include "driver_pinned.h"
void *alloc_host(size_t bytes)
{
    void *p = NULL;
    return checkRuntime(cudaMallocHost(&p, bytes)) ? p : NULL;
}
bool free_host(void *p)
{
    return checkRuntime(cudaFreeHost(p));
}
