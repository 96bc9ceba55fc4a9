/* rounded_down: a variant for the grader's tests (the size registered is rounded down to whole
 * pages: the bytes past the last whole one are not page-locked). */
#include "pin_it.h"

bool pin(void *p, size_t bytes)
{
    return checkRuntime(cudaHostRegister(p, bytes & ~(size_t)4095, cudaHostRegisterDefault));
}

bool unpin(void *p)
{
    return checkRuntime(cudaHostUnregister(p));
}
