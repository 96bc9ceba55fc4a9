/* driver_stream_leaked: the second stream comes from the Driver API (cuStreamCreate) and is
 * never destroyed. The runtime's calls, which the harness counts through the linker's --wrap,
 * show nothing left; the stand-in driver counts it: resources_both_ways "left: stream 1". */
#include "both_ways.h"

bool both_ways_begin(struct both_ways *w)
{
    CUstream s = NULL;
    if (!checkDriver(cuStreamCreate(&s, CU_STREAM_DEFAULT)))
        return false;
    w->mine[0] = s;
    return true;
}

bool both_ways_issue(struct both_ways *w)
{
    cudaStream_t s2 = w->mine[0];
    return checkRuntime(
               cudaMemcpyAsync(w->dev_in, w->up, w->bytes, cudaMemcpyHostToDevice, w->s1)) &&
           checkRuntime(cudaMemcpyAsync(w->down, w->dev_out, w->bytes, cudaMemcpyDeviceToHost, s2));
}

bool both_ways_end(struct both_ways *w)
{
    (void)w; /* the Driver API's stream is never destroyed */
    return true;
}
