/* Wrong: the download names cudaMemcpyHostToDevice. With unified addressing the runtime may
 * still copy the right way, but a kind that does not match the pointers is undefined
 * behaviour (the harness checks each kind against cudaPointerGetAttributes). */
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
           checkRuntime(cudaMemcpyAsync(w->down, w->dev_out, w->bytes, cudaMemcpyHostToDevice, s2));
}

bool both_ways_end(struct both_ways *w)
{
    return checkRuntime(cudaStreamDestroy((cudaStream_t)w->mine[0]));
}
