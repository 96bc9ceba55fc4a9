/* Wrong: malloc + cuMemHostRegister: pinned, but not memory the driver allocated. */
#include <stdlib.h>
#include "driver_pinned.h"
void *alloc_host(size_t bytes)
{
    void *p = malloc(bytes);
    if (p && !checkDriver(cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_PORTABLE))) {
        free(p);
        return NULL;
    }
    return p;
}
bool free_host(void *p)
{
    bool ok = checkDriver(cuMemHostUnregister(p));
    free(p);
    return ok;
}
