/* malloc_fallback: where cuMemHostAlloc fails, the buffer quietly comes from malloc, pageable,
 * and free_host() gives it back with free(). With the driver working, every test of a correct
 * solution passes (even the 4 EiB one: malloc fails too). With the driver's call made to fail
 * (--fail-at 1), alloc_host() hides the failure and gives memory that is not page-locked:
 * "alloc_host given" where NULL was due. */
#include <stdlib.h>

#include "driver_pinned.h"

static void *fallback;

void *alloc_host(size_t bytes)
{
    void *p = NULL;
    if (cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE) == CUDA_SUCCESS)
        return p;
    fallback = malloc(bytes); /* the failure hidden */
    return fallback;
}

bool free_host(void *p)
{
    if (p == fallback) {
        free(p);
        fallback = NULL;
        return true;
    }
    return checkDriver(cuMemFreeHost(p));
}
