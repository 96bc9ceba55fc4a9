/* Wrong: cuMemHostAlloc without CU_MEMHOSTALLOC_PORTABLE. */
#include "driver_pinned.h"
void *alloc_host(size_t bytes)
{
    void *p = NULL;
    return checkDriver(cuMemHostAlloc(&p, bytes, 0)) ? p : NULL;
}
bool free_host(void *p)
{
    return checkDriver(cuMemFreeHost(p));
}
