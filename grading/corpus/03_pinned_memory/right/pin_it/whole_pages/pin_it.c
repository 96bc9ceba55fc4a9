/* Right, another way: the whole pages that hold the buffer are registered, from the start of
 * the first to the end of the last, and unregistered by that same start. */
#include <stdint.h>

#include "pin_it.h"

enum { PAGE = 4096 };

bool pin(void *p, size_t bytes)
{
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(PAGE - 1);
    uintptr_t end = ((uintptr_t)p + bytes + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    return checkRuntime(
        cudaHostRegister((void *)start, (size_t)(end - start), cudaHostRegisterDefault));
}

bool unpin(void *p)
{
    return checkRuntime(cudaHostUnregister((void *)((uintptr_t)p & ~(uintptr_t)(PAGE - 1))));
}
