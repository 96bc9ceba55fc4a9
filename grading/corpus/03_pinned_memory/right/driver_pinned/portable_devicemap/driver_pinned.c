/* Right, another way: portable and mapped into the device's address space too. */
#include "driver_pinned.h"
void *alloc_host(size_t bytes)
{
    void *p = NULL;
    if (!checkDriver(
            cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)))
        return NULL;
    return p;
}
bool free_host(void *p)
{
    return p == NULL || checkDriver(cuMemFreeHost(p));
}
