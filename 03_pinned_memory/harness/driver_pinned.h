/* Exercise driver_pinned: what your driver_pinned.c defines (the harness calls it). */
#ifndef EX_DRIVER_PINNED_H
#define EX_DRIVER_PINNED_H
#include <stddef.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

/* Host memory of `bytes` bytes for copies to the device; NULL when it cannot be had. */
void *alloc_host(size_t bytes);
/* Give back what alloc_host() gave. */
bool free_host(void *p);
#endif
