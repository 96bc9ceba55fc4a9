/*
 * 04_streams_overlap/model.c - the pipeline's model: how fast N chunks over N streams can be,
 * from each stage measured alone at that chunk size, so that what every operation costs
 * beyond its bandwidth (a copy's set-up, a kernel's launch; step 1 shows them) is in it, and
 * so is a kernel too small to fill the GPU (several such kernels can then run side by side).
 *
 * The pipeline: chunk i is copied in, computed, copied out, in stream i. Three engines work at
 * once: the copy engine into the device, the SMs, the copy engine out of it. The model plays
 * the N chunks through them, in order, as a small simulation:
 *   - the copy engine in takes the chunks one after another, H/N each;
 *   - a chunk's kernel starts when the SMs are free and a hand-off after its copy in; the SMs
 *     are free again K/N later (N kernels side by side took K), its result is there k1 later
 *     (one chunk's kernel alone);
 *   - its copy out starts when the copy engine out is free and a hand-off after its kernel,
 *     D/N each;
 *   - while both copy engines run, each moves at its shared rate: H/Hs in, D/Ds out (Hs, Ds:
 *     when the copies in and the copies out end, run at once), as they share the link; with
 *     one copy engine (asyncEngineCount 1) the copies in and out take turns on it: each at
 *     half its rate while both wait, so together they move no faster than one.
 * A hand-off is an engine waiting for the one before it (step 2 measures it: the sequential
 * run minus the stages' sum, over two). One chunk: the sum of the stages and two hand-offs.
 * With CUDA_LAUNCH_BLOCKING=1 (each launch waits for its kernel) or one hardware queue the
 * model is still a bound: the run cannot be faster, but it may be slower (steps 3, 4 and 6).
 * A bound is judged against the same simulation with each direction at its rate alone while
 * both copy (how the link splits between partly overlapping copies is not measured).
 * Not in the model: the host's time to issue every call; it matters when a chunk's operations
 * are short (step 3 then judges the model as a bound only).
 */
#include <math.h>
#include <stdio.h>

#include "lesson.h"

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* A direction's rate, as a fraction of its rate alone, while the other direction copies too:
 * measured (alone over both at once) when `shared`; one copy engine: the two take turns. */
static double rate_while_both(bool shared, double alone, double both)
{
    if (L.engines < 2)
        return 0.5;
    return shared && both > 0 ? fmin(1.0, alone / both) : 1.0;
}

/* Chunk `in` copied in at t: its kernel starts when the SMs are free and a hand-off has passed;
 * when its result is ready for the copy out. */
static double kernel_after_copy_in(struct span sp[][OPS], int in, int n, double t, double hand,
                                   double k_step, double k1, double *sms_free)
{
    double start = fmax(*sms_free, t + hand);
    *sms_free = start + k_step;
    sp[in][OP_H2D].end = t;
    sp[in][OP_KERNEL] = (struct span){start, start + k1};
    if (in + 1 < n)
        sp[in + 1][OP_H2D].start = t;
    return start + k1 + hand;
}

/* The simulation above, `hand` ms per hand-off: when the last copy out ends, in ms; each
 * operation's span into sp (the model's own timeline, for its overlap). With `shared` false,
 * the two directions keep their rates alone while both copy: the shared rates were measured
 * with both directions copying all their data at once, and where the pipeline's copies only
 * partly overlap the link may split otherwise (a copy-bound run by stage on an H100 took
 * 1.98 ms against 2.15 ms with the shared rates, and 1.98 ms is what this simulation gives
 * with the rates alone). With one copy engine the directions take turns either way. */
static double play_pipeline(const struct model *m, double hand, bool shared, struct span sp[][OPS])
{
    int n = m->chunks;
    double h = m->H / n, d = m->D / n, k_step = m->K / n, k1 = m->k1;
    double f_in = rate_while_both(shared, m->H, m->Hs),
           f_out = rate_while_both(shared, m->D, m->Ds);
    double ready_out[MAX_STREAMS];
    double t = 0, sms_free = 0, left_in = h, left_out = 0;
    int in = 0, out = 0; /* the chunk being copied in (n: all in), the next to copy out */
    bool out_busy = false;
    while (out < n) {
        if (!out_busy && out < in && ready_out[out] <= t) {
            out_busy = true;
            left_out = d;
            sp[out][OP_D2H].start = t;
        }
        bool in_busy = in < n;
        double r_in = out_busy ? f_in : 1.0, r_out = in_busy ? f_out : 1.0, next = INFINITY;
        if (in_busy)
            next = fmin(next, t + left_in / r_in);
        if (out_busy)
            next = fmin(next, t + left_out / r_out);
        else if (out < in)
            next = fmin(next, ready_out[out]);
        if (in_busy)
            left_in -= (next - t) * r_in;
        if (out_busy)
            left_out -= (next - t) * r_out;
        t = next;
        if (in_busy && left_in <= 1e-9 * h) { /* chunk `in` is on the device: its kernel */
            ready_out[in] = kernel_after_copy_in(sp, in, n, t, hand, k_step, k1, &sms_free);
            left_in = h, in++;
        }
        if (out_busy && left_out <= 1e-9 * d) {
            sp[out][OP_D2H].end = t;
            out_busy = false;
            out++;
        }
    }
    return t;
}

/* The model's own figures from its measurements: the two simulations and its timeline. */
static void play_model(struct model *m, double handoff)
{
    static struct run timeline;
    m->serial = m->H + m->K + m->D;
    timeline = (struct run){.streams = m->chunks};
    m->bound = play_pipeline(m, handoff, false, timeline.span);
    m->ideal = play_pipeline(m, handoff, true, timeline.span); /* its spans, written last, stay */
    m->overlap = overlap_fraction(&timeline);
}

/* One chunk: the three stages alone at full size, as stages_again times them (t[OPS], their
 * widest spread): the same measurement, so it is not taken twice. */
void model_of_one(const double t[OPS], double spread, double handoff, struct model *m)
{
    *m = (struct model){.chunks = 1, .H = t[OP_H2D], .K = t[OP_KERNEL], .D = t[OP_D2H]};
    m->h1 = m->Hs = m->H, m->k1 = m->K, m->d1 = m->Ds = m->D;
    m->spread = spread;
    play_model(m, handoff);
}

bool measure_model(int chunks, double handoff, struct model *m)
{
    double s[4];
    m->chunks = chunks;
    if (!time_split(OP_H2D, chunks, false, L.reps, &m->H, NULL, &s[0]) ||
        !time_split(OP_KERNEL, chunks, false, L.reps, &m->K, NULL, &s[1]) ||
        !time_split(OP_D2H, chunks, false, L.reps, &m->D, NULL, &s[2]))
        return false;
    m->spread = max3(s[0], s[1], s[2]);
    m->h1 = m->Hs = m->H, m->k1 = m->K, m->d1 = m->Ds = m->D;
    if (chunks > 1) {
        /* One chunk's kernel alone (with several chunks, K can be less than chunks x k1). */
        if (!time_split(OP_KERNEL, chunks, true, L.reps, &m->k1, NULL, NULL) ||
            !time_split(OPS, chunks, false, L.reps, &m->Hs, &m->Ds, &s[3]))
            return false;
        m->spread = s[3] > m->spread ? s[3] : m->spread;
        m->h1 = m->H / chunks;
        m->d1 = m->D / chunks;
    }
    play_model(m, handoff);
    return true;
}

bool within_bound(double ideal, double measured, double spread, double cost)
{
    return measured > ideal / (1.05 + spread) - 2 * cost;
}

bool apart(double a, double b, double bar)
{
    return a > (1 + bar) * b || a < b / (1 + bar);
}

bool near_model(double ideal, double measured, double spread, double cost)
{
    return measured > ideal / (1.05 + spread) - 6 * cost &&
           measured < ideal * (1.05 + spread) + 6 * cost;
}

double largest_op_cost(const struct findings *f)
{
    double cost = 0;
    for (int op = 0; op < OPS; op++)
        cost = f->op_cost[op] > cost ? f->op_cost[op] : cost;
    return cost;
}

double shortest_op(const struct model *m)
{
    double shortest = m->h1 < m->k1 ? m->h1 : m->k1;
    return m->d1 < shortest ? m->d1 : shortest;
}

const struct model *model_for(const struct findings *f, int chunks)
{
    for (int k = 0; k < f->ncounts; k++)
        if (f->model[k].chunks == chunks)
            return &f->model[k];
    return NULL;
}
