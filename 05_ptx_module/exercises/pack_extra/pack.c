/*
 * Exercise pack_extra: launch a kernel with cuLaunchKernel's `extra` buffer.
 *
 * This file is yours (the only one graded). The kernel is
 *     extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
 * and `extra` hands cuLaunchKernel ONE buffer holding all four parameters, laid out exactly as
 * the kernel's parameter list is laid out in memory: each parameter at an offset that is a
 * multiple of its own size (its alignment), in order.
 *
 * YOUR TASK: fix pack_args() below so that the buffer has that layout, and report its size.
 * Today it packs the values back to back (a at 0, x at 4, ...): the pointers are then at
 * offsets the kernel does not read them from, and the launch fails or computes garbage.
 * The harness (harness/pack_extra/) finds where each value landed in the buffer, reads the size
 * you report, and launches axpy with your buffer on fresh data of three sizes.
 * Check: make check (from 05_ptx_module).
 *
 * Hint: the pointer x must start at an offset that is a multiple of 8. A C struct with the
 * same members in the same order has exactly the kernel's layout; offsetof() tells you where.
 */
#include <stddef.h>
#include <string.h>

#include "pack_extra.h"

void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* FIXME: this packs the values back to back. Put each one where the kernel expects it. */
    memcpy(buf + 0, &a, sizeof a);
    memcpy(buf + 4, &x, sizeof x);
    memcpy(buf + 12, &y, sizeof y);
    memcpy(buf + 20, &n, sizeof n);
    *size = 24;
}
