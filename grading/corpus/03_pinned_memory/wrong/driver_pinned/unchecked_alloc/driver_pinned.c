/* Wrong: the allocation's result is never checked: when it fails, alloc_host() hands back
 * whatever the pointer holds, as if it were memory. */
#include "driver_pinned.h"

void *alloc_host(size_t bytes)
{
    void *p = NULL;
    (void)cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE);
    return p;
}

bool free_host(void *p)
{
    return checkDriver(cuMemFreeHost(p));
}
