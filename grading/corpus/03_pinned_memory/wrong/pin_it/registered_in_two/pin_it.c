/* registered_in_two: the buffer registered in two halves, each with a cudaHostRegister of its
 * own, and only the first unregistered: the second half stays locked. Every byte is
 * page-locked while it should be, and unpin() reports success; the stand-in driver counts
 * two registrations, one left: resources_pin_it "left: registered 1 made twice: registered 2". */
#include "pin_it.h"

static size_t half;

bool pin(void *p, size_t bytes)
{
    half = bytes / 2;
    return checkRuntime(cudaHostRegister(p, half, cudaHostRegisterDefault)) &&
           checkRuntime(cudaHostRegister((char *)p + half, bytes - half, cudaHostRegisterDefault));
}

bool unpin(void *p)
{
    return checkRuntime(cudaHostUnregister(p)); /* the second half is forgotten */
}
