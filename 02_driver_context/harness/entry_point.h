/* Exercise entry_point: what your entry_point.c defines (the harness calls it). */
#ifndef EX_ENTRY_POINT_H
#define EX_ENTRY_POINT_H
#include <stdbool.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

#if CUDA_VERSION >= 12050
/* Puts the address of cuMemGetInfo (the CUDA 3.2 ABI) in *fn and the query result in *status. */
bool get_mem_info(void **fn, enum cudaDriverEntryPointQueryResult *status);
/* Puts the address of the per-thread-default-stream cuMemcpyAsync in *fn. */
bool get_per_thread_copy(void **fn);
#endif
#endif
