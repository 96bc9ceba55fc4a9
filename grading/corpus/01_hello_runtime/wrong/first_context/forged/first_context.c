/* Wrong: prints what the grader used to look for, and does nothing. */
#include <stdio.h>
#include "first_context.h"
bool make_context(void)
{
    printf("a context is current: yes\n");
    return true;
}
bool primary_context(CUcontext *primary)
{
    printf("it is device 0's primary context: yes\n");
    *primary = NULL;
    return true;
}
