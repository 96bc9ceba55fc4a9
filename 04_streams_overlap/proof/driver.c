/*
 * 04_streams_overlap/driver.c - step 8: the same pipeline through the Driver API.
 *
 * The runtime's streams and events are the Driver API's CUstream and CUevent underneath (the
 * types are interchangeable), and the runtime works in the device's primary context, which is
 * current on this thread after cudaSetDevice: so Driver API calls made now act in the same
 * context, on the same memory. The pipeline (core.c's pipeline_driver_api) is step 3's "per
 * stream" run written with
 *   cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)   streams that do not wait for the legacy stream
 *   cuMemcpyHtoDAsync / cuMemcpyDtoHAsync        the copies, from the same pinned buffers
 *   cuLaunchKernel                               the lesson's kernel, as a CUfunction
 * and timed here with
 *   cuEventRecord / cuStreamWaitEvent            a common start for every stream
 *   cuEventElapsedTime                           the time, from the GPU's clock
 * It is run twice: as it is, and with step 5b's 4-byte memset in the legacy stream between the
 * streams' work, which joined step 5b's blocking streams into one line and should not touch
 * non-blocking ones.
 */
#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "work.h"

/* The events of step 8: a common start, and one after each chunk's copy out (end.at[i][3]). */
struct driver_timing {
    CUevent start;
    struct pipeline_events end;
};

/* One repetition: core.c's pipeline_driver_api, chunk i in s[i], every stream starting from one
 * event and ending at one of its own, recorded after the pipeline (CU_STREAM_NON_BLOCKING: the
 * legacy stream's memsets do not hold it); *ms from the GPU's clock, start to the last end. */
static bool driver_pipeline(const struct pipeline *p, CUfunction kernel, struct driver_timing *t,
                            bool legacy, double *ms)
{
    CUstream *s = p->stream;
    /* the gate (common/gate.h) in s[0], before the start every stream waits for */
    bool ok = gate_hold(&L.gate, s[0]) && checkDriver(cuEventRecord(t->start, s[0]));
    for (int i = 1; ok && i < p->streams; i++)
        ok = checkDriver(cuStreamWaitEvent(s[i], t->start, 0));
    struct pipeline q = *p;
    q.dev_counter = legacy ? L.d_flag : NULL; /* step 5b's memsets in the legacy stream */
    ok = ok && pipeline_driver_api(&q, kernel);
    /* chunk i's copy out is the last work of s[i], which no legacy-stream work joins */
    for (int i = 0; ok && i < p->streams; i++)
        ok = checkDriver(cuEventRecord(t->end.at[i][AFTER_COPY_OUT], s[i]));
    gate_release(&L.gate);
    if (!ok)
        return false;
    *ms = 0;
    for (int i = 0; i < p->streams; i++) {
        float e = 0;
        if (!checkDriver(cuEventSynchronize(t->end.at[i][3])) ||
            !checkDriver(cuEventElapsedTime(&e, t->start, t->end.at[i][3])))
            return false;
        *ms = e > *ms ? e : *ms;
    }
    gate_check(&L.gate);
    return true;
}

/* Step 8's timing claim where a chunk's operations are too short for the model to bound. */
static void not_judged_too_short(double shortest, double cost, double plain, double model,
                                 double runtime)
{
    char why[480];
    snprintf(why, sizeof why,
             "the shortest operation of a chunk takes %.0f us, under 20 times the "
             "%.1f us an operation costs: each call's own cost decides at this size, not the model "
             "(here %.3f ms through the Driver API, %.3f ms through the runtime in step 3, the "
             "model %.3f ms)",
             1e3 * shortest, 1e3 * cost, plain, runtime, model);
    not_judged(why, "the Driver API pipeline is as fast as the model allows");
}

/* The pipeline without [0] and with [1] the legacy-stream memsets: a warm-up, then L.reps
 * rounds, each timing both, one after the other, so that a slow moment of the machine falls on
 * both alike (timed one after the other, an H100 once read 3.14 against 2.39 ms); the medians
 * and spreads. The output is poisoned before each one's last repetition and checked after it. */
static bool driver_measure(const struct pipeline *p, CUfunction kernel, struct driver_timing *dt,
                           double median[2], double spread[2], bool identical[2])
{
    double t[2][MAX_REPS];
    for (int rep = -1; rep < L.reps; rep++)
        for (int legacy = 0; legacy < 2; legacy++) {
            bool last = rep == L.reps - 1;
            if (last) {
                memset(L.h_out, 0xff, L.bytes);
                if (!checkRuntime(cudaMemset(L.d_out, 0xff, L.bytes)) ||
                    !checkRuntime(cudaDeviceSynchronize()))
                    return false;
            }
            double ms;
            if (!driver_pipeline(p, kernel, dt, legacy, &ms))
                return false;
            if (last) {
                if (!checkRuntime(cudaDeviceSynchronize()))
                    return false;
                identical[legacy] = memcmp(L.h_out, L.ref, L.bytes) == 0;
            }
            if (rep >= 0)
                t[legacy][rep] = ms;
        }
    for (int legacy = 0; legacy < 2; legacy++) {
        median[legacy] = median_of(t[legacy], L.reps);
        spread[legacy] = spread_of(t[legacy], L.reps);
    }
    return true;
}

/* What step 8 measured: the plain and the joined pipeline (medians, spreads, results). */
struct driver_runs {
    double med[2], sp[2];
    bool same[2];
    CUcontext ctx;
};

/* Make the events and the CU_STREAM_NON_BLOCKING streams, time both pipelines, release. */
static bool time_driver_runs(int chunks, struct driver_runs *d)
{
    cudaStream_t s[MAX_STREAMS] = {0};
    static struct driver_timing dt; /* zero: no event made yet */
    memset(&dt, 0, sizeof dt);
    cudaFunction_t kernel = NULL;
    bool ok = checkDriver(cuCtxGetCurrent(&d->ctx)) && checkRuntime(work_function(&kernel)) &&
              checkDriver(cuEventCreate(&dt.start, CU_EVENT_DEFAULT));
    for (int i = 0; ok && i < chunks; i++)
        ok = checkDriver(cuEventCreate(&dt.end.at[i][AFTER_COPY_OUT], CU_EVENT_DEFAULT));
    ok = ok && streams_create(s, chunks, DRIVER_NON_BLOCKING);
    struct pipeline p = lesson_pipeline(L.n, chunks, PINNED, s);
    ok = ok && driver_measure(&p, (CUfunction)kernel, &dt, d->med, d->sp, d->same);
    ok = streams_destroy(s, chunks, DRIVER_NON_BLOCKING) && ok;
    for (int i = 0; i < chunks; i++)
        if (dt.end.at[i][AFTER_COPY_OUT])
            ok = checkDriver(cuEventDestroy(dt.end.at[i][AFTER_COPY_OUT])) && ok;
    if (dt.start)
        ok = checkDriver(cuEventDestroy(dt.start)) && ok;
    return ok;
}

/* The model, timed again beside this step (steps 5-7 ran since step 3, and a GPU whose clocks
 * sag would be judged against a model of a faster moment): false, with why, when it moved. */
static bool model_again(const struct findings *f, int chunks, struct model *now, char *why,
                        size_t len, bool *ok)
{
    const struct model *m = model_for(f, chunks);
    *ok = measure_model(chunks, f->handoff, now);
    if (!*ok)
        return false;
    double bar = 0.05 + (m->spread > now->spread ? m->spread : now->spread);
    printf("   the model of %d stream%s, timed again now: %.2f ms (step 3: %.2f ms)\n", chunks,
           chunks == 1 ? "" : "s", now->ideal, m->ideal);
    if (!apart(now->ideal, m->ideal, bar))
        return true;
    snprintf(why, len,
             "the model allowed %.2f ms in step 3 and %.2f ms now, more than 5%% and the spread "
             "apart: the GPU's pace (its clocks, its temperature, another program) moved",
             m->ideal, now->ideal);
    return false;
}

/* The two timing claims against the model timed again now. */
static void judge_driver(const struct findings *f, const struct model *now, double plain,
                         double joined, double spread, double runtime)
{
    int chunks = f->maxn;
    char why[480];
    double reached = now->ideal / plain, cost = largest_op_cost(f);
    bool shared = chunks >= 2 && queues_shared(chunks, why, sizeof why);
    double shortest = shortest_op(now);
    /* Operations of a few microseconds: what each call costs beyond its bandwidth decides, and
     * the two APIs' pipelines pay it differently (an H100 at 1024 elements: 0.02 ms through the
     * Driver API, 0.05 ms through the runtime in step 3, the model 0.03 ms): no bound either way. */
    if (shortest < 20 * cost)
        not_judged_too_short(shortest, cost, plain, now->ideal, runtime);
    else if (shared || (chunks >= 2 && (L.launch_blocking || L.engines < 2)))
        claim(within_bound(now->bound, plain, spread, cost),
              "the Driver API pipeline: %.2f ms, %.1f%% of the model's %.2f ms: no faster than the "
              "model allows (a bound here, as in step 3: %.2f ms, within 5%%, the spread and two "
              "operation costs)",
              plain, 100 * reached, now->ideal, now->bound);
    else
        claim(near_model(now->ideal, plain, spread, cost),
              "the Driver API pipeline: %.2f ms, %.1f%% of the model's %.2f ms: as fast as the "
              "model allows, as the runtime's was",
              plain, 100 * reached, now->ideal);
    /* Each memset is one more operation on the GPU: allow its cost, measured in step 1. */
    double allowance = (1.05 + spread) * plain + (chunks - 1) * cost;
    if (chunks < 2)
        not_judged("one stream: nothing to join",
                   "the legacy memset does not join non-blocking streams");
    else if (shared)
        not_judged(why,
                   "the legacy memset does not join non-blocking streams (%.2f against %.2f ms "
                   "here)",
                   joined, plain);
    else
        claim(joined < allowance,
              "the legacy-stream memsets do not join CU_STREAM_NON_BLOCKING streams: %.2f against "
              "%.2f ms without them (step 5b's blocking streams: %.2fx slower)",
              joined, plain, f->legacy_ratio);
}

bool step_8_the_driver_api(struct findings *f)
{
    int chunks = f->maxn;
    const struct run *rt = NULL;
    for (int k = 0; k < nruns; k++)
        if (!runs[k].sequential && !runs[k].legacy_between && runs[k].memory == PINNED &&
            runs[k].order == PER_STREAM && runs[k].streams == chunks)
            rt = &runs[k];
    printf("\n8. The same pipeline through the Driver API (%d chunks, per stream)\n", chunks);
    struct driver_runs d = {{0, 0}, {0, 0}, {false, false}, NULL};
    if (!time_driver_runs(chunks, &d))
        return false;
    double plain = d.med[0], joined = d.med[1];
    printf("   cuCtxGetCurrent: %p, the runtime's primary context: the Driver API works in it\n",
           (void *)d.ctx);
    printf("   CU_STREAM_NON_BLOCKING streams: %.2f ms (the runtime's per-stream run in step 3:\n"
           "   %.2f ms); with a 4-byte memset in the legacy stream between the streams' work: %.2f "
           "ms\n",
           plain, rt->median, joined);
    claim(d.same[0] && d.same[1],
          "both Driver API runs returned the sequential result bit for bit");
    char why[480];
    double spread = d.sp[0] > d.sp[1] ? d.sp[0] : d.sp[1];
    struct model now;
    bool ok = true;
    if (!steady(spread, why, sizeof why) || !model_again(f, chunks, &now, why, sizeof why, &ok)) {
        if (ok) {
            not_judged(why, "the Driver API pipeline is as fast as the model allows");
            not_judged(why, "the legacy memset does not join non-blocking streams");
        }
        return ok;
    }
    judge_driver(f, &now, plain, joined, spread > now.spread ? spread : now.spread, rt->median);
    return true;
}
