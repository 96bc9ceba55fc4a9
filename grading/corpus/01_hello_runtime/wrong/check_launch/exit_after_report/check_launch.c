/* exit_after_report: a variant for the grader's tests (prints a report and ends the process
 * before the harness can write its own). */
#include <stdio.h>
#include <stdlib.h>
#include "check_launch.h"
bool scale_on_device(float *host, int n, float factor, int threads_per_block)
{
    (void)host;
    (void)n;
    (void)factor;
    (void)threads_per_block;
    printf("harness: end 1\n");
    fflush(stdout);
    _Exit(0);
}
