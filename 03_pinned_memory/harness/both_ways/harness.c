/*
 * 03_pinned_memory/harness/both_ways - the grader's side of exercise both_ways: an upload and a
 * download of the same odd size from pinned memory. In each of several rounds, the harness
 * times (host clock, from the call until cudaDeviceSynchronize returns) the upload alone, the
 * download alone, both in two streams of its own (what the copy engines allow here), and
 * both_ways_issue() (both_ways.c); the output buffers are poisoned before each of yours. Reports
 * the medians, the copy engines, the data that arrived, and the streams and events the
 * student's code created and did not destroy (counted through the linker's --wrap, and by the
 * stand-in driver whatever API made them). It judges nothing (grading/harness/exercise_harness.h).
 */
#include "03_harness.h"
#include "both_ways.h"
#include "harness_watch.h"

static int counting, streams_left, events_left;

#define COUNTED(ret, name, params, args, counter, delta) \
    ret __real_##name params;                            \
    ret __wrap_##name params                             \
    {                                                    \
        ret r = __real_##name args;                      \
        if (counting && r == cudaSuccess)                \
            counter += delta;                            \
        return r;                                        \
    }
COUNTED(cudaError_t, cudaStreamCreate, (cudaStream_t * s), (s), streams_left, 1)
COUNTED(cudaError_t, cudaStreamCreateWithFlags, (cudaStream_t * s, unsigned int f), (s, f),
        streams_left, 1)
COUNTED(cudaError_t, cudaStreamCreateWithPriority, (cudaStream_t * s, unsigned int f, int p),
        (s, f, p), streams_left, 1)
COUNTED(cudaError_t, cudaStreamDestroy, (cudaStream_t s), (s), streams_left, -1)
COUNTED(cudaError_t, cudaEventCreate, (cudaEvent_t * e), (e), events_left, 1)
COUNTED(cudaError_t, cudaEventCreateWithFlags, (cudaEvent_t * e, unsigned int f), (e, f),
        events_left, 1)
COUNTED(cudaError_t, cudaEventDestroy, (cudaEvent_t e), (e), events_left, -1)

/* Every runtime copy of the student's: its cudaMemcpyKind against what the runtime says of its
 * pointers (cudaPointerGetAttributes: device memory, or the host's). A kind that does not match
 * is undefined behaviour, even where unified addressing happens to copy the right way. */
static int kinds_checked, kinds_wrong;
static int on_device(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice ? 1 : a.type == cudaMemoryTypeManaged ? -1 : 0;
}
cudaError_t __real_cudaMemcpyAsync(void *d, const void *s, size_t b, enum cudaMemcpyKind k,
                                   cudaStream_t st);
cudaError_t __wrap_cudaMemcpyAsync(void *d, const void *s, size_t b, enum cudaMemcpyKind k,
                                   cudaStream_t st)
{
    if (counting && k != cudaMemcpyDefault) {
        int from = on_device(s), to = on_device(d);
        bool from_dev = k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice;
        bool to_dev = k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice;
        kinds_checked++;
        kinds_wrong += (from >= 0 && from != from_dev) || (to >= 0 && to != to_dev);
    }
    return __real_cudaMemcpyAsync(d, s, b, k, st);
}

/* What begin, issue and end made and left, by the stand-in driver, whatever API made it
 * (modules and libraries not judged: the runtime's lazy loading, harness_watch_take_lazy). */
static struct harness_watch watch;

/* both_ways_begin(), counted, the stand-in's window opened before it. */
static bool watched_begin(struct both_ways *w)
{
    watch = harness_watch_take_lazy();
    counting = 1;
    bool began = both_ways_begin(w);
    counting = 0;
    return began;
}

/* What the student's code left and how its copies were named; and whether begin, issue and end
 * left the context stack, the primary context and the device as before (read once, after end:
 * the issues are timed). */
static void report_counts(const struct harness_state *before)
{
    harness_report("left", "%d %d", streams_left, events_left);
    harness_watch_check("both_ways", &watch, NULL);
    harness_report("copy_kinds", "%d %d", kinds_wrong, kinds_checked);
    harness_state_check("both_ways", before);
}

/* The harness's own issue of both copies, in two streams, as the copy engines allow. */
static bool reference_issue(struct both_ways *w, cudaStream_t s2, int which)
{
    return (which & 1 ? checkRuntime(cudaMemcpyAsync(w->dev_in, w->up, w->bytes,
                                                     cudaMemcpyHostToDevice, w->s1))
                      : true) &&
           (which & 2 ? checkRuntime(cudaMemcpyAsync(w->down, w->dev_out, w->bytes,
                                                     cudaMemcpyDeviceToHost, s2))
                      : true);
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise both_ways: both_ways_issue() timed against each direction alone and "
                  "both in two streams.");
    uint32_t seed = harness_seed_now(); /* the buffers' size and data: before your first call */
    size_t n = ((size_t)32 << 20) + seed % 65536, bytes = n * sizeof(float);
    struct both_ways w = {.bytes = bytes};
    float *up = NULL, *down = NULL, *back = NULL;
    void *dev_in = NULL, *dev_out = NULL;
    cudaStream_t s2 = NULL;
    int engines = 0;
    double t[4][ROUNDS], share[ROUNDS];
    bool ok = requireRuntime(cudaSetDevice(0)) &&
              checkRuntime(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0)) &&
              checkRuntime(cudaMallocHost((void **)&up, bytes)) &&
              checkRuntime(cudaMallocHost((void **)&down, bytes)) &&
              checkRuntime(cudaMalloc(&dev_in, bytes)) &&
              checkRuntime(cudaMalloc(&dev_out, bytes)) && checkRuntime(cudaStreamCreate(&w.s1)) &&
              checkRuntime(cudaStreamCreate(&s2)) && (back = malloc(bytes));
    if (!ok)
        return EXIT_CHECK;
    harness_fill(up, n, seed, 0);
    harness_fill(back, n, seed, 1);
    ok = checkRuntime(cudaMemcpy(dev_out, back, bytes, cudaMemcpyHostToDevice));
    w.up = up, w.dev_in = dev_in, w.dev_out = dev_out, w.down = down;
    harness_report("engines", "%d", engines);
    struct harness_state state = harness_state_now(); /* see report_counts */
    bool began = watched_begin(&w);
    harness_report("both_ways_begin", "%s", began ? "true" : "false");
    bool issued = began;
    for (int r = -1; ok && issued && r < ROUNDS; r++) {
        double ms[4];
        for (int which = 0; ok && which < 4; which++) {
            if (which == 3) {              /* yours: on poisoned outputs */
                memset(down, 0x7f, bytes); /* 3.39e38: no NaN, no value of a case */
                ok = checkRuntime(cudaMemset(dev_in, 0x7f, bytes));
            }
            ok = ok && checkRuntime(cudaDeviceSynchronize());
            double t0 = host_ms();
            double t_call = 0;
            if (which < 3)
                ok = ok && reference_issue(&w, s2, which + 1);
            else {
                counting = 1;
                issued = both_ways_issue(&w);
                counting = 0;
                t_call = host_ms() - t0;
            }
            ok = ok && checkRuntime(cudaDeviceSynchronize());
            ms[which] = host_ms() - t0;
            if (which == 3 && r >= 0)
                share[r] = ms[3] > 0 ? t_call / ms[3] : 1;
        }
        for (int i = 0; ok && r >= 0 && i < 4; i++)
            t[i][r] = ms[i];
    }
    harness_report("both_ways_issue", "%s", issued ? "true" : "false");
    if (ok && issued) {
        harness_report("times", "%.3f %.3f %.3f %.3f", median_of(t[0], ROUNDS),
                       median_of(t[1], ROUNDS), median_of(t[2], ROUNDS), median_of(t[3], ROUNDS));
        /* "return without waiting": the call's own share of the time until the device is idle */
        harness_report("issue_share", "%.3f", median_of(share, ROUNDS));
        ok = checkRuntime(cudaMemcpy(back, dev_in, bytes, cudaMemcpyDeviceToHost));
        harness_report("uploaded", "%zu %.1f", n, harness_sum(back, n));
        harness_report("downloaded", "%zu %.1f", n, harness_sum(down, n));
    }
    counting = 1;
    bool ended = both_ways_end(&w);
    counting = 0;
    harness_report("both_ways_end", "%s", ended ? "true" : "false");
    report_counts(&state);
    free(back);
    ok = checkRuntime(cudaStreamDestroy(s2)) && checkRuntime(cudaStreamDestroy(w.s1)) &&
         checkRuntime(cudaFree(dev_in)) && checkRuntime(cudaFree(dev_out)) &&
         checkRuntime(cudaFreeHost(up)) && checkRuntime(cudaFreeHost(down)) && ok;
    return harness_end(seed, ok);
}
