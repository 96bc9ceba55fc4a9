/* Wrong: pins, and never unpins before free(). */
#include "pin_it.h"
bool pin(void *p, size_t bytes)
{
    return checkRuntime(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
}
bool unpin(void *p)
{
    (void)p;
    return true;
}
