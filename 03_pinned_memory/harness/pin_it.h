/* Exercise pin_it: what your pin_it.c defines (the harness calls it). */
#ifndef EX_PIN_IT_H
#define EX_PIN_IT_H
#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "check.h"

/* Page-lock the `bytes` bytes at p (a buffer of the caller's: it may start anywhere in a page and end
 * anywhere in another) where they are. */
bool pin(void *p, size_t bytes);
/* Undo pin(p): afterwards the buffer may go back to free(). */
bool unpin(void *p);
#endif
