/* 05_ptx_module/step5_launch_cost.c - step 5: what a launch costs the host, timed: the empty
 * kernel launched one by one with cuLaunchKernel and with <<<>>> (core.c: launch_empty,
 * launch_empty_runtime_n), with a wait after each (launch_and_wait); then the same launches
 * start to finish, one by one and as a CUDA graph captured by the runtime and by the Driver
 * API (capture_graph_runtime, capture_graph_driver, replay_graph_*). */
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "ptx_module.h"

enum { GRAPH_MAX = 20000, GRAPH_MIN_JUDGED = 1000 };

/* A graph, the runtime's way: n <<<>>> launches on a capturing stream are recorded, not run;
 * the graph is instantiated once, and each replay is one call. */
static bool capture_graph_runtime(long n, cudaStream_t s, cudaGraph_t *g, cudaGraphExec_t *ge)
{
    if (!checkRuntime(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)))
        return false;
    launch_empty_runtime_n(n, s);
    bool ok = checkRuntime(cudaGetLastError());
    ok = checkRuntime(cudaStreamEndCapture(s, g)) && ok;
    return ok && checkRuntime(cudaGraphInstantiate(ge, *g, 0));
}

/* The Driver API's way: the same with cuLaunchKernel on a CUstream. */
static bool capture_graph_driver(CUfunction f, long n, CUstream s, CUgraph *g, CUgraphExec *ge)
{
    if (!checkDriver(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL)))
        return false;
    bool ok = checkDriver(launch_empty(f, n, s));
    ok = checkDriver(cuStreamEndCapture(s, g)) && ok;
    return ok && checkDriver(cuGraphInstantiate(ge, *g, 0));
}

/* Replay a graph (all n kernels, one call) and wait for it. */
static bool replay_graph_runtime(cudaGraphExec_t ge, cudaStream_t s)
{
    return checkRuntime(cudaGraphLaunch(ge, s)) && checkRuntime(cudaStreamSynchronize(s));
}

static bool replay_graph_driver(CUgraphExec ge, CUstream s)
{
    return checkDriver(cuGraphLaunch(ge, s)) && checkDriver(cuStreamSynchronize(s));
}

static bool destroy_graphs(cudaGraph_t rg, cudaGraphExec_t rge, CUgraph dg, CUgraphExec dge)
{
    bool ok = !dge || checkDriver(cuGraphExecDestroy(dge));
    ok = (!dg || checkDriver(cuGraphDestroy(dg))) && ok;
    ok = (!rge || checkRuntime(cudaGraphExecDestroy(rge))) && ok;
    return (!rg || checkRuntime(cudaGraphDestroy(rg))) && ok;
}

/* One timed run of way `w` (n kernels, start to finish), in us per kernel; < 0 on failure. */
static double one_run(int w, CUfunction f, long n, cudaGraphExec_t rge, cudaStream_t rs,
                      CUgraphExec dge, CUstream ds)
{
    bool ok = true;
    double t0 = host_ms();
    switch (w) {
    case 0: ok = checkDriver(launch_empty(f, n, NULL)) && checkDriver(cuCtxSynchronize()); break;
    case 1:
        launch_empty_runtime_n(n, NULL);
        ok = checkRuntime(cudaGetLastError()) && checkRuntime(cudaDeviceSynchronize());
        break;
    case 2: ok = replay_graph_runtime(rge, rs); break;
    default: ok = replay_graph_driver(dge, ds); break;
    }
    return ok ? (host_ms() - t0) * 1e3 / (double)n : -1.0;
}

/* The same launches start to finish: one by one, and as a graph captured each way. */
static bool launch_cost_graphs(struct lesson *L)
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
    ok = ok && capture_graph_runtime(n, rs, &rg, &rge);
    double rt_build_ms = host_ms() - t0;
    t0 = host_ms();
    ok = ok && capture_graph_driver(L->empty_fn, n, ds, &dg, &dge);
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
    ok = destroy_graphs(rg, rge, dg, dge) && ok;
    if (ds)
        ok = checkDriver(cuStreamDestroy(ds)) && ok;
    if (rs)
        ok = checkRuntime(cudaStreamDestroy(rs)) && ok;
    return ok;
}

/* Round by round (one run of each way per round): host time per launch of `empty` with
 * cuLaunchKernel, with <<<>>>, and with a wait after each (a tenth as many), in us. */
static bool launch_rounds(struct lesson *L, double *cu_us, double *rt_us, double *sync_us)
{
    long launches = L->launches, sync_launches = launches / 10 > 0 ? launches / 10 : 1;
    bool ok = true;
    /* Warm up both paths: the runtime loads its own copy of `empty` on first use. */
    for (int i = 0; i < 100 && ok; i++) {
        ok = checkDriver(launch_empty(L->empty_fn, 1, NULL));
        launch_empty_runtime_n(1, NULL);
    }
    if (!ok || !checkRuntime(cudaGetLastError()) || !checkDriver(cuCtxSynchronize()))
        return false;
    for (int k = 0; k < REPEATS; k++) {
        double t0 = host_ms();
        CUresult first = launch_empty(L->empty_fn, launches, NULL);
        cu_us[k] = (host_ms() - t0) * 1e3 / (double)launches;
        if (!checkDriver(first) || !checkDriver(cuCtxSynchronize()))
            return false;
        t0 = host_ms();
        launch_empty_runtime_n(launches, NULL);
        rt_us[k] = (host_ms() - t0) * 1e3 / (double)launches;
        if (!checkRuntime(cudaGetLastError()) || !checkDriver(cuCtxSynchronize()))
            return false;
        t0 = host_ms();
        first = launch_and_wait(L->empty_fn, sync_launches);
        sync_us[k] = (host_ms() - t0) * 1e3 / (double)sync_launches;
        if (!checkDriver(first))
            return false;
    }
    return true;
}

/* 5. Host time per launch of an empty kernel: cuLaunchKernel, <<<>>>, and with a wait. */
bool step_5_what_a_launch_costs(struct lesson *L)
{
    printf("\n5. What a launch costs the host: empty kernel, %ld launches per run, %d runs\n",
           L->launches, REPEATS);
    double cu_us[REPEATS], rt_us[REPEATS], sync_us[REPEATS];
    if (!launch_rounds(L, cu_us, rt_us, sync_us))
        return false;
    double cu_med =
        print_median("   cuLaunchKernel                       ", cu_us, 6, 2, "us per launch");
    double rt_med =
        print_median("   <<<1, 1>>> (the runtime's launch)    ", rt_us, 6, 2, "us per launch");
    double sync_med =
        print_median("   cuLaunchKernel + cuCtxSynchronize    ", sync_us, 6, 2, "us per launch");
    double ratio = cu_med / rt_med;
    timing_claim(L, ratio > 0.5 && ratio < 2.0,
                 "cuLaunchKernel and <<<>>> cost about the same (ratio %.2f, "
                 "within a factor of 2)",
                 ratio);
    timing_claim(L, cu_med < 100.0 && rt_med < 100.0,
                 "a launch costs the host microseconds, not milliseconds");
    if (L->blocking)
        not_judged("CUDA_LAUNCH_BLOCKING=1 makes every launch wait for its kernel",
                   "waiting for each launch to finish (%.2f us) costs more than launching "
                   "(%.2f us)",
                   sync_med, cu_med);
    else
        timing_claim(L, sync_med > cu_med,
                     "waiting for each launch to finish (%.2f us) costs more than launching "
                     "(%.2f us)",
                     sync_med, cu_med);
    return launch_cost_graphs(L);
}
