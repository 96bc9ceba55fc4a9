/* stream_leaked: a variant for the grader's tests. */
#include "both_ways.h"

bool both_ways_begin(struct both_ways *w)
{
    return checkRuntime(cudaStreamCreate((cudaStream_t *)&w->mine[0]));
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
    (void)w; /* the stream is never destroyed */
    return true;
}
