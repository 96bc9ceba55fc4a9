/* address_expression: a variant for the grader's tests. */
#include <stdio.h>
#include "find_kernel.h"
bool before_compile(nvrtcProgram prog)
{
    return nvrtcAddNameExpression(prog, "&scale") == NVRTC_SUCCESS;
}
bool kernel_name(nvrtcProgram prog, char *name, size_t len)
{
    const char *lowered = NULL;
    if (nvrtcGetLoweredName(prog, "&scale", &lowered) != NVRTC_SUCCESS)
        return false;
    return snprintf(name, len, "%s", lowered) < (int)len;
}
