/* Exercise stack_order: what your stack_order.c defines (the harness calls it). */
#ifndef EX_STACK_ORDER_H
#define EX_STACK_ORDER_H
#include <stdbool.h>
#include <stddef.h>
#include <cuda.h>
#include "check.h"

/* Called with the stack [a b] (b current, on top). Allocate `bytes` in context a into *buf,
 * and leave the stack exactly as it was. */
bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes);
#endif
