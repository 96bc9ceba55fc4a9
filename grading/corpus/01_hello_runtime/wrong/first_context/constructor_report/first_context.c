/* constructor_report: a variant for the grader's tests (a constructor prints a report before
 * main() and the real work is not done). */
#include <stdio.h>
#include "first_context.h"
__attribute__((constructor)) static void forge(void)
{
    printf("harness: context_before none\nharness: make_context true\n");
}
bool make_context(void)
{
    return true;
}
bool primary_context(CUcontext *primary)
{
    *primary = NULL;
    return true;
}
