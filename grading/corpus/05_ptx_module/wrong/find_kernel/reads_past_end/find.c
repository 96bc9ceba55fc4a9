/* Wrong: the name is copied with a fixed length, len bytes from a string that is shorter: the
 * copy reads past the end of NVRTC's string (the terminator comes along, so the name looks
 * right where the bytes after the string happen to be readable). */
#include <string.h>

#include "find_kernel.h"

bool before_compile(nvrtcProgram prog)
{
    return nvrtcAddNameExpression(prog, "scale") == NVRTC_SUCCESS;
}

bool kernel_name(nvrtcProgram prog, char *name, size_t len)
{
    const char *lowered = NULL;
    if (nvrtcGetLoweredName(prog, "scale", &lowered) != NVRTC_SUCCESS || len == 0)
        return false;
    memcpy(name, lowered, len - 1);
    name[len - 1] = '\0';
    return true;
}
