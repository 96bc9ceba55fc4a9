/*
 * 04_streams_overlap/measure.c - the measuring apparatus: one run issued into its streams and
 * timed with events, repetitions and their median, the overlap fraction, and the pipeline's
 * model. The lesson's steps (steps.c, breaks.c) use it; the work it times is core.c's.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "work.h"

const char op_letter[OPS] = {'H', 'K', 'D'};
const char *const op_name[OPS] = {"H2D", "kernel", "D2H"};

struct lesson L;
struct run runs[MAX_RUNS];
int nruns;

struct pipeline lesson_pipeline(size_t n, int chunks, enum memory memory, cudaStream_t *streams)
{
    return (struct pipeline){.streams = chunks,
                             .n = n,
                             .work = L.work,
                             .host_in = memory == PINNED ? L.h_in : L.p_in,
                             .host_out = memory == PINNED ? L.h_out : L.p_out,
                             .dev_in = L.d_in,
                             .dev_out = L.d_out,
                             .dev_counter = NULL, /* L.d_flag: the legacy-stream memsets */
                             .stream = streams};
}

/* One operation of chunk i of p, alone, in stream s: the stages timed alone (step 1, the model,
 * step 5's copies and kernels behind a kernel). The pipelines themselves are core.c's. */
bool issue_stage(const struct pipeline *p, int op, int i, cudaStream_t s)
{
    size_t at = chunk_first(p, i), n = chunk_size(p, i), bytes = n * sizeof(float);
    if (op == OP_H2D)
        return checkRuntime(
            cudaMemcpyAsync(p->dev_in + at, p->host_in + at, bytes, cudaMemcpyHostToDevice, s));
    if (op == OP_KERNEL)
        return checkRuntime(launch_work(p->dev_in + at, p->dev_out + at, n, p->work, s));
    return checkRuntime(
        cudaMemcpyAsync(p->host_out + at, p->dev_out + at, bytes, cudaMemcpyDeviceToHost, s));
}

bool elapsed(cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float f = 0;
    if (!checkRuntime(cudaEventElapsedTime(&f, a, b)))
        return false;
    *ms = f;
    return true;
}

/* Issue one repetition of a run through core.c's pipelines, with an event before each chunk's
 * copy in and after each of its operations (L.ev). The sequential run is in the legacy default
 * stream (stream 0, a.k.a. NULL), which waits for all earlier work in blocking streams, and
 * their later work waits for it. */
static bool issue_run(const struct run *r)
{
    struct pipeline p = lesson_pipeline(r->n, r->streams, r->memory, L.stream);
    if (r->legacy_between)
        p.dev_counter = L.d_flag; /* a library's memset in the legacy stream between chunks */
    watch_begin(&L.ev);           /* an event at each stage of core.c's calls (watch.c) */
    bool ok = r->sequential            ? pipeline_sequential(&p)
              : r->order == PER_STREAM ? pipeline_per_stream(&p)
                                       : pipeline_by_stage(&p);
    return watch_end() && ok;
}

/* The events of a repetition just done, as spans (see run_once). */
static bool spans_from_events(int chunks, struct span spans[][OPS])
{
    static double ready[MAX_STREAMS][OPS], end[MAX_STREAMS][OPS];
    for (int i = 0; i < chunks; i++) {
        if (!elapsed(L.start, L.ev.at[i][0], &ready[i][0]))
            return false;
        for (int op = 0; op < OPS; op++) {
            if (!elapsed(L.start, L.ev.at[i][op + 1], &end[i][op]))
                return false;
            if (op + 1 < OPS)
                ready[i][op + 1] = end[i][op];
        }
    }
    for (int op = 0; op < OPS; op++) {
        /* The operations of one kind in the order they finished (insertion sort: few). */
        int order[MAX_STREAMS];
        for (int i = 0; i < chunks; i++) {
            int j = i;
            for (; j > 0 && end[order[j - 1]][op] > end[i][op]; j--)
                order[j] = order[j - 1];
            order[j] = i;
        }
        double engine_free = 0;
        for (int j = 0; j < chunks; j++) {
            int i = order[j];
            double start = ready[i][op] > engine_free ? ready[i][op] : engine_free;
            spans[i][op].start = start < end[i][op] ? start : end[i][op];
            spans[i][op].end = end[i][op];
            engine_free = end[i][op];
        }
    }
    return true;
}

/* One repetition of a run: issue everything, wait, and turn the events into spans.
 * An event tells when its stream reached it, which is not always when the operation after
 * it started: a copy may still wait for the copy engine, a kernel for the SMs. So an
 * operation is drawn from the later of (its stream reached it, the operation of the same
 * kind that finished just before it finished), to its own end: one copy per direction
 * and one kernel at a time, in the order they finished. */
bool run_once(const struct run *r, struct span spans[][OPS], double *total)
{
    int chunks = r->streams;
    /* Pinned runs are queued whole behind the gate (common/gate.h; in the legacy stream, which
     * every blocking stream waits for); pageable copies wait on the stream to be staged, so
     * those runs are timed as they are queued. */
    if (r->memory == PINNED && !gate_hold(&L.gate, 0))
        return false;
    bool ok = checkRuntime(cudaEventRecord(L.start, 0)) && issue_run(r) &&
              checkRuntime(cudaEventRecord(L.stop, 0));
    gate_release(&L.gate);
    if (!ok || !checkRuntime(cudaEventSynchronize(L.stop)) || !elapsed(L.start, L.stop, total))
        return false;
    gate_check(&L.gate);
    return spans_from_events(chunks, spans);
}

static bool covered(const struct run *r, int op_lo, int op_hi, double t)
{
    for (int i = 0; i < r->streams; i++)
        for (int op = op_lo; op <= op_hi; op++)
            if (r->span[i][op].start <= t && t < r->span[i][op].end)
                return true;
    return false;
}

/* The time during which some copy and some kernel ran together, as a fraction of the
 * shorter of (the time some copy ran, the time some kernel ran): 0 when nothing overlaps,
 * 1 when the shorter activity is entirely hidden behind the other. */
double overlap_fraction(const struct run *r)
{
    static double t[2 * MAX_STREAMS * OPS];
    int nt = 0;
    for (int i = 0; i < r->streams; i++)
        for (int op = 0; op < OPS; op++) {
            t[nt++] = r->span[i][op].start;
            t[nt++] = r->span[i][op].end;
        }
    sort_doubles(t, nt);
    double copying = 0, computing = 0, both = 0;
    for (int j = 0; j + 1 < nt; j++) {
        double a = t[j], b = t[j + 1], mid = (a + b) / 2;
        if (b <= a)
            continue;
        bool copy = covered(r, OP_H2D, OP_H2D, mid) || covered(r, OP_D2H, OP_D2H, mid);
        bool kernel = covered(r, OP_KERNEL, OP_KERNEL, mid);
        copying += copy ? b - a : 0;
        computing += kernel ? b - a : 0;
        both += copy && kernel ? b - a : 0;
    }
    double shorter = copying < computing ? copying : computing;
    return shorter > 0 ? both / shorter : 0;
}

/* A run's repetitions kept while its rounds go on: every repetition's total and spans. */
struct kept {
    double totals[MAX_REPS];
    struct span spans[MAX_REPS][MAX_STREAMS][OPS];
};

/* The output of r's memory kind poisoned (all bits set, a NaN) on the host and the device. */
static bool poison_output(const struct run *r)
{
    memset(r->memory == PINNED ? L.h_out : L.p_out, 0xff, r->n * sizeof(float));
    return checkRuntime(cudaMemset(L.d_out, 0xff, L.bytes)) &&
           checkRuntime(cudaDeviceSynchronize());
}

/* The median, the spread, the repetition closest to the median (its timeline is the one
 * drawn) and its overlap, from what was kept. */
static void summarise(struct run *r, const struct kept *k)
{
    double sorted[MAX_REPS];
    memcpy(sorted, k->totals, sizeof(double) * (size_t)L.reps);
    sort_doubles(sorted, L.reps);
    r->median = median_of(sorted, L.reps);
    r->lo = sorted[0];
    r->hi = sorted[L.reps - 1];
    r->spread = spread_of(sorted, L.reps);
    int keep = 0;
    for (int rep = 1; rep < L.reps; rep++)
        if (fabs(k->totals[rep] - r->median) < fabs(k->totals[keep] - r->median))
            keep = rep;
    r->total = k->totals[keep];
    memcpy(r->span, k->spans[keep], sizeof r->span);
    r->overlap = overlap_fraction(r);
}

/* The runs a step compares, taken round by round: one warm-up of each, then L.reps rounds,
 * each timing every run once in turn. A slow moment of the machine (a neighbour's burst on the
 * link) then slows one repetition of every run, which their medians leave out, instead of every
 * repetition of one run. In the last round each run's output is poisoned first and compared
 * with the reference right after it. */
bool measure_rounds(struct run **rs, int n)
{
    struct kept *k = calloc((size_t)n, sizeof *k);
    static struct span warm[MAX_STREAMS][OPS];
    bool ok = k != NULL;
    for (int rep = -1; ok && rep < L.reps; rep++)
        for (int j = 0; ok && j < n; j++) {
            struct run *r = rs[j];
            double t = 0;
            bool last = rep == L.reps - 1;
            ok = (!last || poison_output(r)) && run_once(r, rep < 0 ? warm : k[j].spans[rep], &t);
            if (ok && rep >= 0)
                k[j].totals[rep] = t;
            if (ok && last)
                r->identical = L.ref && memcmp(r->memory == PINNED ? L.h_out : L.p_out, L.ref,
                                               r->n * sizeof(float)) == 0;
        }
    for (int j = 0; ok && j < n; j++)
        summarise(rs[j], &k[j]);
    free(k);
    return ok;
}

bool measure(struct run *r)
{
    return measure_rounds(&r, 1);
}

struct run *new_run(int streams, enum order order, enum memory memory, bool sequential,
                    bool legacy_between)
{
    struct run *r = &runs[nruns++];
    r->streams = streams;
    r->order = order;
    r->memory = memory;
    r->sequential = sequential;
    r->legacy_between = legacy_between;
    /* Pageable copies run at a fraction of the link's rate (about 7 GB/s on an H200 against 55
     * pinned) and wait on the host: step 5a's runs move a quarter of the data, from 4 Mi floats
     * up (its claims are about the overlap and the calls, which do not depend on the size). */
    r->n = memory == PAGEABLE && L.n >= (4u << 20) ? L.n / 4 : L.n;
    if (sequential)
        snprintf(r->label, sizeof r->label, "%s-sequential",
                 memory == PINNED ? "pinned" : "pageable");
    else
        snprintf(r->label, sizeof r->label, "%s-%s%s-%d", memory == PINNED ? "pinned" : "pageable",
                 order == PER_STREAM ? "per-stream" : "by-stage", legacy_between ? "-legacy" : "",
                 streams);
    return r;
}

/* One repetition of time_split, held behind the gate, done when it returns. */
static bool split_once(const struct pipeline *p, int which, int issued)
{
    bool ok = gate_hold(&L.gate, 0) && checkRuntime(cudaEventRecord(L.start, 0));
    for (int i = 0; ok && i < issued; i++) {
        if (which == OPS)
            ok = issue_stage(p, OP_H2D, i, L.stream[0]) && issue_stage(p, OP_D2H, i, L.stream[1]);
        else
            ok = issue_stage(p, which, i, issued == 1 ? 0 : L.stream[i]);
    }
    if (ok && which == OPS)
        ok = checkRuntime(cudaEventRecord(L.ev.at[0][AFTER_COPY_IN], L.stream[0])) &&
             checkRuntime(cudaEventRecord(L.ev.at[1][AFTER_COPY_OUT], L.stream[1]));
    ok = ok && checkRuntime(cudaEventRecord(L.stop, 0));
    gate_release(&L.gate);
    if (!ok || !checkRuntime(cudaEventSynchronize(L.stop)))
        return false;
    gate_check(&L.gate);
    return true;
}

/* One stage cut into `chunks` chunks, each chunk in its own stream (stream 0, the legacy
 * default stream, when there is one chunk), nothing else running; with `first_only`, only
 * the first of those chunks, alone in the legacy stream: median over `reps` after a
 * warm-up, from a start event to the stop event in the legacy stream, which waits for every
 * blocking stream. OPS (as `which`) means both copy directions at once: every copy in queued
 * in one stream, every copy out in another; then *t is when the last copy in ended and *t2
 * when the last copy out ended, both from the common start. *spread: (max - min) / median. */
bool time_split(int which, int chunks, bool first_only, int reps, double *t, double *t2,
                double *spread)
{
    double a[MAX_REPS], b[MAX_REPS];
    int issued = first_only ? 1 : chunks;
    struct pipeline p = lesson_pipeline(L.n, chunks, PINNED, L.stream);
    for (int rep = -1; rep < reps; rep++) {
        if (!split_once(&p, which, issued))
            return false;
        if (rep < 0)
            continue;
        if (which == OPS) {
            if (!elapsed(L.start, L.ev.at[0][1], &a[rep]) ||
                !elapsed(L.start, L.ev.at[1][3], &b[rep]))
                return false;
        } else if (!elapsed(L.start, L.stop, &a[rep])) {
            return false;
        }
    }
    *t = median_of(a, reps);
    double s = spread_of(a, reps);
    if (t2) {
        *t2 = which == OPS ? median_of(b, reps) : *t;
        if (which == OPS && spread_of(b, reps) > s)
            s = spread_of(b, reps);
    }
    if (spread)
        *spread = s;
    return true;
}

/* The stages alone, full size, in the legacy stream (both copies at once: in two streams). */
bool time_stage(int which, int reps, double *t, double *t2)
{
    return time_split(which, 1, false, reps, t, t2, NULL);
}

/* What an operation costs beyond its bandwidth: 16 copies of 4 bytes each way, and 16 kernels
 * of one element and one multiply-add, back to back in the legacy stream; per operation,
 * median over L.reps after a warm-up. */
bool per_op_costs(double ms[OPS])
{
    enum { BACK_TO_BACK = 16 };
    /* one float: a copy of 4 bytes each way, a kernel of one element and one multiply-add */
    struct pipeline one = lesson_pipeline(1, 1, PINNED, L.stream);
    one.work = 1;
    for (int op = 0; op < OPS; op++) {
        double t[MAX_REPS];
        for (int rep = -1; rep < L.reps; rep++) {
            bool ok = gate_hold(&L.gate, 0) && checkRuntime(cudaEventRecord(L.start, 0));
            for (int k = 0; ok && k < BACK_TO_BACK; k++)
                ok = issue_stage(&one, op, 0, 0);
            ok = ok && checkRuntime(cudaEventRecord(L.stop, 0));
            gate_release(&L.gate);
            if (!ok || !checkRuntime(cudaEventSynchronize(L.stop)))
                return false;
            gate_check(&L.gate);
            if (rep >= 0 && !elapsed(L.start, L.stop, &t[rep]))
                return false;
        }
        ms[op] = median_of(t, L.reps) / BACK_TO_BACK;
    }
    return true;
}

bool steady(double spread, char *why, size_t len)
{
    if (L.untimed[0]) {
        snprintf(why, len, "%s", L.untimed);
        return false;
    }
    if (gpu_shared(why, len))
        return false;
    if (L.drift[0]) {
        snprintf(why, len, "%s", L.drift);
        return false;
    }
    if (spread <= 0.10)
        return true;
    snprintf(why, len,
             "the repetitions behind it spread by %.0f%%, more than 10%%: too noisy to compare "
             "times (possible causes: another program on this GPU, host-side staging of pageable "
             "copies)",
             100 * spread);
    return false;
}

bool tclaim(bool cond, const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (L.untimed[0]) {
        not_judged(L.untimed, "%s", text);
        return true;
    }
    return claim(cond, "%s", text);
}

bool queues_shared(int streams, char *why, size_t len)
{
    if (L.connections >= streams)
        return false;
    snprintf(why, len,
             "CUDA_DEVICE_MAX_CONNECTIONS=%d gives %d stream%s %d hardware queue%s: "
             "streams that share a queue wait on each other's work (false dependencies, step 6)",
             L.connections, streams, streams == 1 ? "" : "s", L.connections,
             L.connections == 1 ? "" : "s");
    return true;
}

double spread_of(const double *v, int n)
{
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    if (med <= 0)
        return 0;
    return n >= 4 ? (v[n - 2] - v[1]) / med : (v[n - 1] - v[0]) / med;
}

double run_spread(const struct run *r)
{
    return r->spread;
}

/* Two significant figures: 2437 -> 2400, 87 -> 87. */
static int round2(double v)
{
    if (v < 1)
        return 1;
    double scale = pow(10, floor(log10(v)) - 1);
    if (scale < 1)
        scale = 1;
    return (int)(floor(v / scale + 0.5) * scale);
}

/* --work auto: time the kernel, scale the work so that it takes target_ms, three times. */
bool choose_work(double target_ms)
{
    L.work = 256;
    for (int it = 0; it < 3; it++) {
        double t;
        if (!time_stage(OP_KERNEL, 3, &t, NULL))
            return false;
        double w = L.work * target_ms / t;
        L.work = round2(w > 1000000 ? 1000000 : w);
    }
    return true;
}

double gbps(size_t bytes, double ms)
{
    return (double)bytes / 1e9 / (ms / 1e3);
}
