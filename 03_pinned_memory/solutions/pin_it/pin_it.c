/*
 * Reference solution of exercise 1 - pin_it.
 */
#include "pin_it.h"

bool pin(void *p, size_t bytes)
{
    /* Page-lock the pages of p where they are: no new allocation, no copy. */
    return checkRuntime(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
}

bool unpin(void *p)
{
    /* free() must never see pages the driver still has locked. */
    return checkRuntime(cudaHostUnregister(p));
}
