/*
 * Reference solution of exercise 3 - driver_pinned: the buffer comes from cuMemHostAlloc
 * (CU_MEMHOSTALLOC_PORTABLE) and goes back with cuMemFreeHost.
 */
#include "driver_pinned.h"

void *alloc_host(size_t bytes)
{
    void *p = NULL;
    /* Page-locked memory from the driver, pinned for every context (PORTABLE). */
    return checkDriver(cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE)) ? p : NULL;
}

bool free_host(void *p)
{
    return checkDriver(cuMemFreeHost(p));
}
