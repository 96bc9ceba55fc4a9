/* Exercise first_context: the functions your first_context.c defines (the harness calls them). */
#ifndef EX_FIRST_CONTEXT_H
#define EX_FIRST_CONTEXT_H
#include <stdbool.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

/* Create device 0's primary context and make it current on this thread. False: a call failed. */
bool make_context(void);
/* Set *primary to device 0's primary context, giving back any reference taken. */
bool primary_context(CUcontext *primary);
#endif
