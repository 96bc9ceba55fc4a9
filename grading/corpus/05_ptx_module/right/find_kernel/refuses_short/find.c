/* Right, another way: a name that does not fit in the length given is not given at all
 * (false), instead of being cut. */
#include <string.h>

#include "find_kernel.h"

bool before_compile(nvrtcProgram prog)
{
    return nvrtcAddNameExpression(prog, "scale") == NVRTC_SUCCESS;
}

bool kernel_name(nvrtcProgram prog, char *name, size_t len)
{
    const char *lowered = NULL;
    if (nvrtcGetLoweredName(prog, "scale", &lowered) != NVRTC_SUCCESS)
        return false;
    size_t need = strlen(lowered) + 1;
    if (need > len)
        return false;
    memcpy(name, lowered, need);
    return true;
}
