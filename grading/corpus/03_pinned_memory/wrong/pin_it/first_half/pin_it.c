/* Wrong: pins only the first half of the buffer. */
#include "pin_it.h"
bool pin(void *p, size_t bytes)
{
    return checkRuntime(cudaHostRegister(p, bytes / 2, cudaHostRegisterDefault));
}
bool unpin(void *p)
{
    return checkRuntime(cudaHostUnregister(p));
}
