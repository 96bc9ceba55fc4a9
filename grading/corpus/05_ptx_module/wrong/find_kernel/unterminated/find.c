/* unterminated: a variant for the grader's tests (the name is copied without its terminator). */
#include <string.h>
#include <stdio.h>

#include "find_kernel.h"

bool before_compile(nvrtcProgram prog)
{
    /* Ask NVRTC to keep track of the expression "scale" ... */
    return nvrtcAddNameExpression(prog, "scale") == NVRTC_SUCCESS;
}

bool kernel_name(nvrtcProgram prog, char *name, size_t len)
{
    /* ... and, after compiling, read the name the compiler gave it. */
    const char *lowered = NULL;
    if (nvrtcGetLoweredName(prog, "scale", &lowered) != NVRTC_SUCCESS)
        return false;
    size_t n = strlen(lowered);
    memcpy(name, lowered, n < len ? n : len); /* the name's bytes, without its terminator */
    return true;
}
