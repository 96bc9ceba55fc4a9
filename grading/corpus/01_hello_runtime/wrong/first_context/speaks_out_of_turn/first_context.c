/* Wrong: a correct solution that also speaks on the grader's channel out of turn. It points
 * stdout's FILE at the channel's descriptor (a plain struct field) and writes a line the judge
 * never asked for: the conversation is broken, the run scores nothing, and it is flagged. */
#include <stdio.h>
#include "first_context.h"
bool make_context(void)
{
    fflush(stdout);
    stdout->_fileno = 512; /* where the harness keeps the channel */
    printf("at seeded\n");
    fflush(stdout);
    stdout->_fileno = 1;
    return checkRuntime(cudaSetDevice(0));
}
bool primary_context(CUcontext *primary)
{
    CUdevice dev = 0;
    return checkDriver(cuDeviceGet(&dev, 0)) &&
           checkDriver(cuDevicePrimaryCtxRetain(primary, dev)) &&
           checkDriver(cuDevicePrimaryCtxRelease(dev));
}
