/*
 * Exercise 3 - driver_pinned: pinned memory through the Driver API.
 *
 * This file is yours (the only one graded). The harness (harness/driver_pinned/) gets a buffer
 * from alloc_host(), copies it to the device, and compares the rate with a pageable and a
 * cudaMallocHost buffer measured in turns in the same run (the runtime and the Driver API share
 * the device's primary context, current when your functions are called). It asks the driver
 * what it knows of the buffer (cuMemHostGetFlags) before and after free_host(), and counts your
 * allocation calls. As given, the buffer comes from malloc: its copies are staged through the
 * driver's own buffer (step 4 of the lesson).
 *   FIXME 1: allocate it with cuMemHostAlloc instead (flag CU_MEMHOSTALLOC_PORTABLE: pinned for
 *            every context, as step 7 shows), checked with checkDriver.
 *   FIXME 2: release it with cuMemFreeHost instead of free().
 * Grade it: make check   (from 03_pinned_memory/; README.md beside this file)
 */
#include <stdlib.h>

#include "driver_pinned.h"

void *alloc_host(size_t bytes)
{
    /* FIXME 1: allocate with cuMemHostAlloc instead. */
    return malloc(bytes);
}

bool free_host(void *p)
{
    free(p); /* FIXME 2: memory from cuMemHostAlloc goes back with cuMemFreeHost. */
    return true;
}
