/* Exercise pack_extra: what your pack.c defines (the harness calls it). */
#ifndef EX_PACK_EXTRA_H
#define EX_PACK_EXTRA_H
#include <stddef.h>
#include <cuda.h>
#include "check.h"

/* Pack (a, x, y, n) into buf the way the kernel
 *     extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
 * lays out its parameters; set *size to the number of bytes used (up to the end of the last
 * parameter). */
void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n);
#endif
