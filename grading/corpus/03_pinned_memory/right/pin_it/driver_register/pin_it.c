/* Right, the Driver API way: cuMemHostRegister and cuMemHostUnregister. */
#include "pin_it.h"
bool pin(void *p, size_t bytes)
{
    return checkDriver(cuMemHostRegister(p, bytes, 0));
}
bool unpin(void *p)
{
    return checkDriver(cuMemHostUnregister(p));
}
