/* copied_terminated: a variant for the grader's tests (a correct alternative: memcpy and a terminator). */
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
    if (len == 0 || n >= len)
        return false;
    memcpy(name, lowered, n); /* the name's bytes, then its terminator */
    name[n] = '\0';
    return true;
}
