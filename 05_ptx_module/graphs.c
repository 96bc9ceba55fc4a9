/* 05_ptx_module/graphs.c - the end of step 5: the same launches captured into a CUDA graph,
 * once through the runtime (cudaStreamBeginCapture ... cudaGraphLaunch) and once through the
 * Driver API (cuStreamBeginCapture ... cuGraphLaunch), timed start to finish per kernel
 * against launching them one by one with cuLaunchKernel and <<<>>>. */
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "ptx_module.h"

void launch_empty_runtime(void);                   /* kernels.cu */
void launch_empty_runtime_on(cudaStream_t stream); /* kernels.cu */

enum { GRAPH_MAX = 20000, GRAPH_MIN_JUDGED = 1000 };

/* The runtime's way: capture n <<<>>> launches on a stream into a graph, instantiate it. */
static bool capture_runtime(long n, cudaStream_t s, cudaGraph_t *g, cudaGraphExec_t *ge)
{
    if (!checkRuntime(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)))
        return false;
    for (long i = 0; i < n; i++)
        launch_empty_runtime_on(s); /* recorded into the graph, not run */
    bool ok = checkRuntime(cudaGetLastError());
    ok = checkRuntime(cudaStreamEndCapture(s, g)) && ok;
    return ok && checkRuntime(cudaGraphInstantiate(ge, *g, 0));
}

/* The Driver API's way: the same with cuLaunchKernel on a CUstream. */
static bool capture_driver(CUfunction f, long n, CUstream s, CUgraph *g, CUgraphExec *ge)
{
    if (!checkDriver(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL)))
        return false;
    CUresult first = CUDA_SUCCESS;
    for (long i = 0; i < n; i++) {
        CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
        if (r != CUDA_SUCCESS && first == CUDA_SUCCESS)
            first = r;
    }
    bool ok = checkDriver(first);
    ok = checkDriver(cuStreamEndCapture(s, g)) && ok;
    return ok && checkDriver(cuGraphInstantiate(ge, *g, 0));
}

/* One timed run of way `w` (n kernels, start to finish), in us per kernel; < 0 on failure. */
static double one_run(int w, CUfunction f, long n, cudaGraphExec_t rge, cudaStream_t rs,
                      CUgraphExec dge, CUstream ds)
{
    bool ok = true;
    CUresult first = CUDA_SUCCESS;
    double t0 = host_ms();
    switch (w) {
    case 0:
        for (long i = 0; i < n; i++) {
            CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            if (r != CUDA_SUCCESS && first == CUDA_SUCCESS)
                first = r;
        }
        ok = checkDriver(first) && checkDriver(cuCtxSynchronize());
        break;
    case 1:
        for (long i = 0; i < n; i++)
            launch_empty_runtime();
        ok = checkRuntime(cudaGetLastError()) && checkRuntime(cudaDeviceSynchronize());
        break;
    case 2:
        ok = checkRuntime(cudaGraphLaunch(rge, rs)) && checkRuntime(cudaStreamSynchronize(rs));
        break;
    default:
        ok = checkDriver(cuGraphLaunch(dge, ds)) && checkDriver(cuStreamSynchronize(ds));
        break;
    }
    return ok ? (host_ms() - t0) * 1e3 / (double)n : -1.0;
}

bool launch_cost_graphs(struct lesson *L)
{
    long n = L->launches < GRAPH_MAX ? L->launches : GRAPH_MAX;
    cudaStream_t rs = NULL;
    cudaGraph_t rg = NULL;
    cudaGraphExec_t rge = NULL;
    CUstream ds = NULL;
    CUgraph dg = NULL;
    CUgraphExec dge = NULL;
    double us[4][REPEATS];
    bool ok = checkRuntime(cudaStreamCreateWithFlags(&rs, cudaStreamNonBlocking)) &&
              checkDriver(cuStreamCreate(&ds, CU_STREAM_NON_BLOCKING));
    double t0 = host_ms();
    ok = ok && capture_runtime(n, rs, &rg, &rge);
    double rt_build_ms = host_ms() - t0;
    t0 = host_ms();
    ok = ok && capture_driver(L->empty_fn, n, ds, &dg, &dge);
    double cu_build_ms = host_ms() - t0;
    /* one warm-up run of each graph (the first launch uploads it to the GPU), then REPEATS */
    ok = ok && one_run(2, NULL, n, rge, rs, dge, ds) >= 0 &&
         one_run(3, NULL, n, rge, rs, dge, ds) >= 0;
    for (int k = 0; k < REPEATS && ok; k++)
        for (int w = 0; w < 4 && ok; w++)
            ok = (us[w][k] = one_run(w, L->empty_fn, n, rge, rs, dge, ds)) >= 0;
    if (ok) {
        printf("   the same %ld launches, start to finish (synchronised), per kernel (median, "
               "min-max):\n",
               n);
        double one_cu =
            print_median("      cuLaunchKernel, one by one         ", us[0], 6, 2, "us");
        double one_rt =
            print_median("      <<<>>>, one by one                 ", us[1], 6, 2, "us");
        double g_rt = print_median("      graph, runtime stream capture      ", us[2], 6, 2, "us");
        double g_cu = print_median("      graph, Driver API stream capture   ", us[3], 6, 2, "us");
        printf("      (capture + instantiate, once: runtime %.3f ms, Driver API %.3f ms)\n",
               rt_build_ms, cu_build_ms);
        double one = one_cu < one_rt ? one_cu : one_rt, graph = g_rt > g_cu ? g_rt : g_cu;
        if (n >= GRAPH_MIN_JUDGED)
            timing_claim(
                L, graph < one,
                "a graph runs the same kernels at less cost per kernel (%.2f us, the dearer "
                "graph) than launching them one by one (%.2f us, the cheaper way)",
                graph, one);
        else
            not_judged("fewer than 1000 launches: the graph's own launch cost is not spread thin",
                       "a graph costs less per kernel than launching one by one");
    }
    if (dge)
        ok = checkDriver(cuGraphExecDestroy(dge)) && ok;
    if (dg)
        ok = checkDriver(cuGraphDestroy(dg)) && ok;
    if (rge)
        ok = checkRuntime(cudaGraphExecDestroy(rge)) && ok;
    if (rg)
        ok = checkRuntime(cudaGraphDestroy(rg)) && ok;
    if (ds)
        ok = checkDriver(cuStreamDestroy(ds)) && ok;
    if (rs)
        ok = checkRuntime(cudaStreamDestroy(rs)) && ok;
    return ok;
}
