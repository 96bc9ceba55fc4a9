/* Exercise context_leak: what your task.c defines (the harness calls it). */
#ifndef EX_CONTEXT_LEAK_H
#define EX_CONTEXT_LEAK_H
#include <stdbool.h>
#include <stddef.h>
#include <cuda.h>
#include "check.h"

/* One task in a context of its own on device dev: in[0..n) to the device and back into
 * out[0..n). True when every call succeeded. The caller's context is current again after it. */
bool do_task(CUdevice dev, const float *in, float *out, size_t n);
#endif
