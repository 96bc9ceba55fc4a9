/* Wrong: allocates right and never gives the memory back. */
#include "driver_pinned.h"
void *alloc_host(size_t bytes)
{
    void *p = NULL;
    return checkDriver(cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE)) ? p : NULL;
}
bool free_host(void *p)
{
    (void)p;
    return true;
}
