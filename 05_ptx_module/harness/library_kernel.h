/* Exercise library_kernel: what your library.c defines (the harness calls it). */
#ifndef EX_LIBRARY_KERNEL_H
#define EX_LIBRARY_KERNEL_H
#include <stdbool.h>
#include <cuda.h>
#include "check.h"

/* Load the code in `image` (a cubin or PTX holding extern "C" __global__ void twice(float *y,
 * int n)) ONCE, so that every context, those that exist and those created later, can run
 * `twice`; put what you need later in *handle. */
bool kernel_load(const void *image, void **handle);
/* The function `twice` for the context current now. */
bool kernel_function(void *handle, CUfunction *f);
/* Unload what kernel_load() loaded. */
bool kernel_unload(void *handle);
#endif
