/*
 * 04_streams_overlap/steps.c - steps 1 to 4 of the lesson: the three stages alone, the work in
 * sequence, the work split over N streams in two issue orders, and the timelines of those runs.
 * Each step prints its part of the output and its claims; measure.c holds the timing loops.
 */
#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "work.h"

/* The copies alone and both at once, round by round (a copy in, a copy out, both at once, then
 * the next round), so that a moment when the machine is slower, or a neighbour that starts or
 * stops copying, falls on all three alike: each is the others' control sample. Medians; *spread
 * the widest spread of the three. */
static bool copies_interleaved(double *th, double *td, double *th2, double *td2, double *spread)
{
    double h[MAX_REPS], d[MAX_REPS], b1[MAX_REPS], b2[MAX_REPS];
    for (int rep = 0; rep < L.reps; rep++)
        if (!time_split(OP_H2D, 1, false, 1, &h[rep], NULL, NULL) ||
            !time_split(OP_D2H, 1, false, 1, &d[rep], NULL, NULL) ||
            !time_split(OPS, 1, false, 1, &b1[rep], &b2[rep], NULL))
            return false;
    *th = median_of(h, L.reps), *td = median_of(d, L.reps);
    *th2 = median_of(b1, L.reps), *td2 = median_of(b2, L.reps);
    double s[4] = {spread_of(h, L.reps), spread_of(d, L.reps), spread_of(b1, L.reps),
                   spread_of(b2, L.reps)};
    *spread = s[0];
    for (int k = 1; k < 4; k++)
        *spread = s[k] > *spread ? s[k] : *spread;
    return true;
}

/* 1. The three stages alone: a copy in, the kernel, a copy out, and both copies at once. */
bool step_1_stages_alone(struct findings *f)
{
    printf("\n1. The three stages alone (events around each, in the legacy default stream)\n");
    double th, td, tk, th2, td2, sp[2];
    if (!copies_interleaved(&th, &td, &th2, &td2, &sp[0]))
        return false;
    double both = th2 > td2 ? th2 : td2;
    if (f->auto_work && !choose_work(1.2 * both))
        return false;
    if (!time_split(OP_KERNEL, 1, false, L.reps, &tk, NULL, &sp[1]) || !per_op_costs(f->op_cost))
        return false;
    double spread = sp[0] > sp[1] ? sp[0] : sp[1];
    char why[480];
    bool steady_stages = steady(spread, why, sizeof why);
    f->th = th, f->tk = tk, f->td = td, f->th2 = th2, f->td2 = td2;
    const char *size_s = f->size_s;
    printf("   host-to-device copy   %s   %7.2f ms   %5.1f GB/s\n", size_s, th, gbps(L.bytes, th));
    printf("   kernel                %s   %7.2f ms   (%d multiply-adds per element, %s)\n", size_s,
           tk, L.work, f->auto_work ? "chosen: about 1.2x a shared copy" : "from --work");
    printf("   device-to-host copy   %s   %7.2f ms   %5.1f GB/s\n", size_s, td, gbps(L.bytes, td));
    printf("   both copies at once, in two streams: in %.2f ms, out %.2f ms (each direction over\n"
           "   its own span: %.1f and %.1f GB/s); both buffers over the longer span: %.1f GB/s\n"
           "   (the copies alone and both at once were timed in turn, %d rounds)\n",
           th2, td2, gbps(L.bytes, th2), gbps(L.bytes, td2), gbps(2 * L.bytes, both), L.reps);
    printf("   asyncEngineCount %d (the number of asynchronous engines): %s\n", L.engines,
           L.engines >= 2
               ? "2 or more, so a copy in, a copy out\n   and kernels can all run at the same time"
           : L.engines == 1 ? "one: a copy in and a copy out take turns on it\n   (a copy still "
                              "runs beside kernels)"
                            : "none: no copy runs beside a kernel");
    printf(
        "   per operation, beyond its bandwidth (16 back to back in the legacy stream): a 4-byte\n"
        "   copy in %.1f us, out %.1f us, a kernel of one element %.1f us; N chunks pay it N "
        "times\n",
        1e3 * f->op_cost[OP_H2D], 1e3 * f->op_cost[OP_D2H], 1e3 * f->op_cost[OP_KERNEL]);
    /* A copy that is mostly its fixed cost shows no bandwidth to compare (--elements 1024). */
    double copy = th < td ? th : td,
           cost = f->op_cost[OP_H2D] > f->op_cost[OP_D2H] ? f->op_cost[OP_H2D] : f->op_cost[OP_D2H];
    if (steady_stages && copy < 20 * cost) {
        snprintf(why, sizeof why,
                 "a copy of %s takes %.1f us, under 20 times the %.1f us a copy "
                 "costs beyond its bandwidth: too short to show a bandwidth",
                 size_s, 1e3 * copy, 1e3 * cost);
        steady_stages = false;
    }
    double one = gbps(L.bytes, th < td ? th : td), total = gbps(2 * L.bytes, both);
    /* What the card's attribute decides comes first: with one engine there is no gain to
     * judge, however steady the timings. */
    if (L.engines < 2) {
        char engine[480];
        snprintf(engine, sizeof engine,
                 "asyncEngineCount %d: %s, so both at once move about what one direction does "
                 "(here %.1f against %.1f GB/s)",
                 L.engines,
                 L.engines == 1 ? "one asynchronous engine takes the copies in and out in turn"
                                : "no asynchronous engine: the copies in and out take turns",
                 total, one);
        not_judged(engine, "both directions at once move more than one direction alone");
    } else if (!steady_stages) {
        not_judged(why, "both directions at once move more than one direction alone");
    } else {
        claim(total > (1.2 + spread) * one,
              "both directions at once moved %.1f GB/s, more than one direction alone (%.1f GB/s) "
              "by 20%% and the spread (%.0f%%)",
              total, one, 100 * spread);
    }
    if (!steady_stages && f->auto_work)
        not_judged(why, "the kernel takes about as long as a copy");
    if (f->auto_work && steady_stages)
        claim(tk > 0.5 * th && tk < 2.0 * th,
              "the kernel takes %.2f ms, comparable to a copy (%.2f ms): overlap can pay off", tk,
              th);
    return true;
}

/* Step 2's run against step 1's stages: a hand-off far longer than an operation's cost, or
 * repetitions far apart, mean the pace moved (L.drift says how). */
static void sequence_pace(const struct findings *f, const struct run *seq)
{
    /* A hand-off is an engine starting on the one before it: a few microseconds, like an
     * operation's cost (0-22 us on quiet H100s). One many times an operation's cost, over
     * 50 us and, two of them, over 2% of the sequence (a difference of two medians reads
     * 0.05 ms at 256 MiB with nothing wrong), means something else held the work up: the host
     * issuing it where there is no gate (common/gate.h; an H100 on a busy host once read
     * 1.392 ms per hand-off, repetitions 5.32 to 7.07 ms), the GPU's pace where there is.
     * Repetitions that spread by more than 10% and six operation costs (what three
     * operations' fixed costs can jitter, twice over: 5 us of a 0.05 ms sequence is nothing)
     * mean the pace changed while it ran. Either way the model built on this run would expect
     * the streams to wait as long, so no timing claim that compares with it is judged. */
    double cost = largest_op_cost(f);
    bool waited =
        f->handoff > 20 * cost && f->handoff > 0.05 && 2 * f->handoff > 0.02 * seq->median;
    bool spread = run_spread(seq) > 0.10 && seq->hi - seq->lo > 6 * cost;
    if (!L.drift[0] && waited)
        snprintf(L.drift, sizeof L.drift,
                 "the run in sequence took %.2f to %.2f ms, %.3f ms per "
                 "hand-off where an operation costs %.1f us: %s, and the model built on it cannot "
                 "be compared",
                 seq->lo, seq->hi, f->handoff, 1e3 * cost,
                 L.gate.off[0] ? "the GPU waited for the host to issue the work (another program "
                                 "busy on this machine's CPUs?)"
                               : "the GPU's pace changed between step 1 and the sequence (another "
                                 "program on this GPU, or on the host's memory?)");
    else if (!L.drift[0] && spread)
        snprintf(L.drift, sizeof L.drift,
                 "the run in sequence took %.3f to %.3f ms from one "
                 "repetition to the next, more than 10%% and six operation costs (%.1f us each) "
                 "apart: the machine's pace changed while it ran (another program on this GPU or "
                 "busy on its CPUs?), and the model built on it cannot be compared",
                 seq->lo, seq->hi, 1e3 * cost);
}

/* 2. The same work in sequence, in the legacy default stream; checked against the host. */
bool step_2_in_sequence(struct findings *f)
{
    printf("\n2. In sequence: copy in, kernel, copy out, all in the legacy default stream\n");
    struct run *seq = f->seq = new_run(1, PER_STREAM, PINNED, true, false);
    if (!measure(seq))
        return false;
    memcpy(L.ref, L.h_out, L.bytes);
    size_t stride = L.n / 16384 ? L.n / 16384 : 1, sampled = 0, wrong = 0;
    for (size_t i = 0; i < L.n; i += stride, sampled++) {
        float want = work_on_host(work_input(i), L.work);
        wrong += memcmp(&want, &L.ref[i], sizeof want) != 0;
    }
    double sum = f->th + f->tk + f->td;
    f->handoff = seq->median > sum ? (seq->median - sum) / 2 : 0;
    printf("   %.2f ms (spread %.2f to %.2f), the stages' sum is %.2f ms: %.3f ms per hand-off\n"
           "   (an engine waiting for the one before it: copy in -> kernel, kernel -> copy out;\n"
           "   the difference over two, step 3's model counts it)\n",
           seq->median, seq->lo, seq->hi, sum, f->handoff);
    sequence_pace(f, seq);
    printf("   %zu elements recomputed on the host with fmaf: %zu differ\n", sampled, wrong);
    claim(wrong == 0, "the GPU's result matches the host's bit for bit (%zu elements sampled)",
          sampled);
    return true;
}

static const char *order_name(enum order o)
{
    return o == PER_STREAM ? "per stream" : "by stage";
}

/* The three stages as step 1 timed them, and `now` timed again (`when`): if they moved by more
 * than 5% in all (or a stage that is a fifth of the sum or more moved by more than 5% on its
 * own: a kernel slowed by clocks that sag, beside copies that did not), something changed the
 * machine's pace, and the timing claims that compare figures taken apart are not judged from
 * here on (the first reason found stands). */
static void same_pace(const struct findings *f, const double now[OPS], const char *when)
{
    const double before[OPS] = {f->th, f->tk, f->td};
    double sum0 = before[0] + before[1] + before[2], sum1 = now[0] + now[1] + now[2];
    bool moved = apart(sum1, sum0, 0.05);
    for (int op = 0; op < OPS; op++)
        if (before[op] >= 0.2 * sum0 && apart(now[op], before[op], 0.05))
            moved = true;
    if (!L.drift[0] && moved)
        snprintf(L.drift, sizeof L.drift,
                 "the three stages took %.3g, %.3g and %.3g ms in step 1 "
                 "and %.3g, %.3g and %.3g ms %s: timings this unsteady (clocks that sag, another "
                 "program on the GPU or its link, or times too short to repeat) cannot be "
                 "compared",
                 before[0], before[1], before[2], now[0], now[1], now[2], when);
}

/* The same three stages, timed again; they are the model of one stream too (*one). */
static bool stages_again(const struct findings *f, const char *when, struct model *one)
{
    double t[OPS], s[OPS];
    for (int op = 0; op < OPS; op++)
        if (!time_split(op, 1, false, L.reps, &t[op], NULL, &s[op]))
            return false;
    same_pace(f, t, when);
    double spread = s[0] > s[1] ? s[0] : s[1];
    model_of_one(t, spread > s[2] ? spread : s[2], f->handoff, one);
    return true;
}

/* A model's own figures against each other and step 1: both directions at once no slower than
 * one after the other, and one chunk's stages as step 1 timed them (L.drift when not). */
static void model_pace(const struct findings *f, const struct model *m)
{
    /* Both directions at once cannot take longer than one after the other, unless the
     * machine's pace moved while they were timed (an H100 once read 3.13 ms for 8 chunks
     * in, against 1.31 + 1.24 ms apart). */
    if (m->chunks > 1 && !L.drift[0] &&
        (m->Hs > 1.05 * (m->H + m->D) || m->Ds > 1.05 * (m->H + m->D)))
        snprintf(L.drift, sizeof L.drift,
                 "with %d chunks the copies both ways at once took "
                 "%.2f and %.2f ms, longer than one direction after the other (%.2f ms): the "
                 "machine's pace moved while the model was timed",
                 m->chunks, m->Hs, m->Ds, m->H + m->D);
    /* One chunk: the same three stages as step 1, timed once more (an H100 once read them
     * 6% slower here than a moment before, in stages_again: the machine's pace moved). */
    if (m->chunks == 1)
        same_pace(f, (const double[OPS]){m->H, m->K, m->D}, "for the model of one stream");
}

/* Step 3's first half: the model for every stream count, printed before any streamed run. */
static bool state_the_model(struct findings *f)
{
    const struct run *seq = f->seq;
    struct model one;
    if (!stages_again(f, "before the model", &one))
        return false;
    printf(
        "   the model, before measuring: each stage timed alone, cut into N chunks in N streams\n"
        "   (so every operation's fixed cost is in it), and the copies both ways at once; then\n"
        "   the chunks played through the three engines in order (copy in, SMs, copy out): a\n"
        "   kernel starts a hand-off (%.3f ms, step 2) after its chunk's copy in, a copy out a\n"
        "   hand-off after its kernel, and while both directions copy, each moves at its\n"
        "   shared rate%s\n",
        f->handoff,
        L.launch_blocking ? ";\n   with CUDA_LAUNCH_BLOCKING=1 each launch waits for its kernel, "
                            "so the host issues\n"
                            "   what follows late: the model is only a bound"
                          : "");
    printf(
        "   streams  copies in   kernels     copies out  both ways: in, out   ideal      allows\n");
    f->allowed = 1;
    for (int k = 0; k < f->ncounts; k++) {
        struct model *m = &f->model[k];
        if (f->counts[k] == 1)
            *m = one; /* the stages just timed: one chunk's model is that measurement */
        else if (!measure_model(f->counts[k], f->handoff, m))
            return false;
        model_pace(f, m);
        double allows = seq->median / m->ideal;
        f->allowed = allows > f->allowed ? allows : f->allowed;
        if (m->chunks == 1)
            printf("   %7d  %7.2f ms  %7.2f ms  %7.2f ms   -                    %7.2f ms  %5.2fx\n",
                   m->chunks, m->H, m->K, m->D, m->ideal, allows);
        else
            printf("   %7d  %7.2f ms  %7.2f ms  %7.2f ms   %6.2f, %6.2f ms     %7.2f ms  %5.2fx\n",
                   m->chunks, m->H, m->K, m->D, m->Hs, m->Ds, m->ideal, allows);
    }
    printf("   the model allows at most %.2fx over the sequential run's %.2f ms\n", f->allowed,
           seq->median);
    return true;
}

/* One stream does the sequence's very work (only its stream differs): the two must take the
 * same time. Apart by more than 5% and their spreads, the machine's pace moved between them
 * (an H100 on a busy host: 17.87 ms in one stream, 16.32 ms in sequence), and no timing claim
 * is judged from here on. */
static void same_as_sequence(const struct run *r, const struct run *seq)
{
    double bar = 0.05 + (r->spread > seq->spread ? r->spread : seq->spread);
    if (r->streams == 1 && !L.drift[0] && apart(r->median, seq->median, bar))
        snprintf(L.drift, sizeof L.drift,
                 "the same work took %.2f ms in one stream and %.2f ms in sequence, in the same "
                 "rounds, more than 5%% and their spreads apart: the machine's pace (another "
                 "program on the GPU, its link or the CPUs that issue the work) moved between them",
                 r->median, seq->median);
}

/* Step 3's runs: every stream count, per stream and by stage (one chunk: per stream only), and
 * the sequential run again as the same-round reference, taken round by round (measure_rounds);
 * each against its model; *best, the fastest. */
static bool run_each_count(const struct findings *f, struct run **best_run)
{
    struct run *seq = f->seq, *rs[2 * MAX_COUNTS + 1] = {seq};
    int model_of[2 * MAX_COUNTS + 1], n = 1;
    for (int k = 0; k < f->ncounts; k++)
        for (int o = PER_STREAM; o <= BY_STAGE; o++)
            if (o == PER_STREAM || f->counts[k] > 1) { /* one chunk: by stage is per stream */
                model_of[n] = k;
                rs[n++] = new_run(f->counts[k], (enum order)o, PINNED, false, false);
            }
    if (!measure_rounds(rs, n))
        return false;
    struct run *best = NULL;
    bool all_identical = true;
    for (int j = 1; j < n; j++) {
        struct run *r = rs[j];
        double ideal = f->model[model_of[j]].ideal;
        printf("   %7d  %-11s %7.2f ms (%.2f-%.2f)   %7.2f ms  %5.1f%%   %5.2fx    %s\n",
               r->streams, order_name(r->order), r->median, r->lo, r->hi, ideal,
               100 * ideal / r->median, seq->median / r->median,
               r->identical ? "identical" : "DIFFERENT");
        all_identical = all_identical && r->identical;
        if (!best || r->median < best->median)
            best = r;
        same_as_sequence(r, seq);
    }
    printf("   (the runs and the sequence, %.2f ms now, timed round by round: one of each per "
           "round, %d rounds)\n",
           seq->median, L.reps);
    claim(all_identical, "all %d streamed runs returned the sequential result bit for bit", n - 1);
    *best_run = best;
    return true;
}

/* After step 3's runs: the stages and the model timed again, to catch a pace that moved. */
static bool pace_after_runs(const struct findings *f)
{
    /* The stages once more, after the runs: the model and the runs were timed between this and
     * the check before the model, so a pace that moved in between shows at one end or the other. */
    struct model one;
    if (!L.drift[0] && !stages_again(f, "after the runs", &one))
        return false;
    /* And the model itself, timed again after the runs: a GPU whose clocks sag under a long load
     * (a 70 W card, a laptop) runs its kernels slower at the end than when the model was timed,
     * and the three stages at full size, timed in a moment, may not show it. */
    for (int k = 0; k < f->ncounts && !L.drift[0]; k++) {
        struct model after = one; /* one stream: the stages just timed */
        const struct model *m = &f->model[k];
        if (m->chunks > 1 && !measure_model(m->chunks, f->handoff, &after))
            return false;
        double bar = 0.05 + (m->spread > after.spread ? m->spread : after.spread);
        if (apart(after.ideal, m->ideal, bar))
            snprintf(L.drift, sizeof L.drift,
                     "the model of %d stream%s allowed %.2f ms before the "
                     "runs and %.2f ms after them, more than 5%% and the spread apart: the GPU's "
                     "pace (its clocks, its temperature, another program) moved while it ran",
                     m->chunks, m->chunks == 1 ? "" : "s", m->ideal, after.ideal);
    }
    return true;
}

/* Step 3's claims: each stream count's best run against its model, as a target where the model
 * holds, as a bound (with the reason) where it leaves something out. */
static void judge_each_count(const struct findings *f)
{
    for (int k = 0; k < f->ncounts; k++) {
        const struct model *m = &f->model[k];
        struct run *b = NULL;
        for (int j = 0; j < nruns; j++)
            if (!runs[j].sequential && runs[j].memory == PINNED && runs[j].streams == m->chunks &&
                (!b || runs[j].median < b->median))
                b = &runs[j];
        double reached = m->ideal / b->median, spread = run_spread(b);
        char why[480];
        if (m->spread > spread)
            spread = m->spread;
        if (!steady(spread, why, sizeof why)) {
            not_judged(why, "%d stream%s as fast as the model allows", m->chunks,
                       m->chunks == 1 ? "" : "s");
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "%d stream%s%s%s: %.2f ms, %.1f%% of the model's %.2f ms",
                 m->chunks, m->chunks == 1 ? "" : "s", m->chunks == 1 ? "" : ", best order ",
                 m->chunks == 1 ? "" : order_name(b->order), b->median, 100 * reached, m->ideal);
        double shortest = shortest_op(m), cost = largest_op_cost(f);
        if (m->chunks >= 2 && queues_shared(m->chunks, why, sizeof why))
            ; /* the reason is in why */
        else if (m->chunks >= 2 && L.launch_blocking)
            snprintf(why, sizeof why,
                     "CUDA_LAUNCH_BLOCKING=1: each launch waits for its kernel, "
                     "and how late the host issues the rest depends on the order (step 4)");
        else if (m->chunks >= 2 && L.engines < 2)
            snprintf(why, sizeof why, "asyncEngineCount %d: %s", L.engines,
                     L.engines == 1 ? "one asynchronous engine takes the copies in and out in "
                                      "turn, in an order the model does not follow"
                                    : "no asynchronous engine: no copy runs beside a kernel, "
                                      "which the model assumes");
        else if (shortest < 20 * cost) /* one stream too: its hand-offs are a noisy difference */
            snprintf(why, sizeof why,
                     "the shortest operation of a chunk takes %.0f us, under 20 "
                     "times the %.1f us an operation costs: what passes between operations weighs "
                     "in (the host's time to issue them, which the model leaves out: an "
                     "explanation, not measured here)",
                     1e3 * shortest, 1e3 * cost);
        else
            why[0] = '\0';
        if (!why[0]) {
            claim(near_model(m->ideal, b->median, spread, cost),
                  "%s: as fast as the model says this balance allows", what);
        } else {
            claim(within_bound(m->bound, b->median, spread, cost),
                  "%s: no faster than the model allows (a bound here: %.2f ms with %s, within "
                  "5%%, the spread and two operation costs)",
                  what, m->bound,
                  L.engines == 1   ? "the two directions taking turns on the one copy engine"
                  : L.engines == 0 ? "the two directions taking turns (and here no copy beside "
                                     "a kernel)"
                                   : "both directions at their full rates while they overlap");
            not_judged(why, "%d stream%s as fast as the model allows", m->chunks,
                       m->chunks == 1 ? "" : "s");
        }
    }
}

/* 3. N chunks over N streams, issued per stream and by stage, against the pipeline's model. */
bool step_3_split_over_streams(struct findings *f)
{
    const struct run *seq = f->seq;
    printf("\n3. Split into N chunks, one per stream, in two issue orders\n");
    printf("   per stream: copy in, kernel, copy out of chunk 1, then of chunk 2, ...\n");
    printf("   by stage:   all copies in, then all kernels, then all copies out\n");
    if (!state_the_model(f))
        return false;
    printf(
        "   streams  order        time (spread)            model    reached  speed-up  result\n");
    struct run *best = NULL;
    if (!run_each_count(f, &best) || !pace_after_runs(f))
        return false;
    judge_each_count(f);
    /* (a speed-up under 1, as with the smallest sizes, is said as what it is: slower) */
    double speedup = seq->median / best->median;
    printf("   best: %d stream%s %s, %.2f ms against %.2f ms in sequence: %.2fx %s (the model "
           "allowed %.2fx)\n",
           best->streams, best->streams == 1 ? "" : "s", order_name(best->order), best->median,
           seq->median, speedup, speedup >= 1 ? "faster" : "the sequential speed, slower",
           f->allowed);
    return true;
}

/* Step 4's claim where the environment or the card decides it; false when none does. */
static bool overlap_decided_here(const struct findings *f, const struct run *wide,
                                 const struct run *wide_stage, double want)
{
    int maxn = f->maxn;
    if (maxn == 1)
        not_judged("one stream runs its operations one after another",
                   "copies and kernels overlap");
    else if (L.untimed[0])
        not_judged(L.untimed, "with %d streams copies and kernels overlap", maxn);
    else if (L.engines == 0)
        not_judged("asyncEngineCount 0: this GPU runs no copy beside a kernel",
                   "with %d streams copies and kernels overlap", maxn);
    else if (L.launch_blocking) {
        claim(wide->overlap < 0.10,
              "CUDA_LAUNCH_BLOCKING=1, per stream: copies and kernels hardly overlap (%.0f%%, "
              "under 10%% wanted): each launch waits for its kernel before the next chunk's copy "
              "in is issued",
              100 * wide->overlap);
        if (wide_stage)
            claim(
                wide_stage->overlap >= want,
                "CUDA_LAUNCH_BLOCKING=1, by stage: the copies in, issued before the first launch, "
                "still overlap the kernels: %.0f%% (%.0f%% wanted)",
                100 * wide_stage->overlap, 100 * want);
    } else
        return false;
    return true;
}

/* Step 4's claim with one hardware queue, or fewer queues than streams; false: neither. */
static bool overlap_with_few_queues(const struct findings *f, const struct run *wide,
                                    const struct run *wide_stage, double want)
{
    char why[480];
    int maxn = f->maxn;
    if (L.connections == 1) {
        claim(wide->overlap < 0.10,
              "one hardware queue: per stream, kernels wait behind the copies of other streams: "
              "overlap %.0f%%",
              100 * wide->overlap);
        if (wide_stage)
            claim(wide_stage->overlap >= want,
                  "one hardware queue: by stage, copies and kernels still overlap: %.0f%% (%.0f%% "
                  "wanted)",
                  100 * wide_stage->overlap, 100 * want);
        return true;
    }
    if (!queues_shared(maxn, why, sizeof why))
        return false;
    not_judged(why, "with %d streams, per stream, copies and kernels overlap as in the model",
               maxn);
    if (wide_stage)
        claim(wide_stage->overlap >= want,
              "%d hardware queues for %d streams: by stage, copies and kernels still overlap: "
              "%.0f%% (%.0f%% wanted)",
              L.connections, maxn, 100 * wide_stage->overlap, 100 * want);
    return true;
}

/* Step 4's claim on a machine that can show it: the better order's overlap against the
 * model's own timeline, or against half of 1 - 1/N with one copy engine. */
static void overlap_as_in_the_model(const struct findings *f, const struct run *better, double want)
{
    int maxn = f->maxn;
    const struct model *m = model_for(f, maxn);
    double shortest = shortest_op(m), cost = largest_op_cost(f);
    char why[480];
    if (L.engines < 2) {
        claim(better->overlap >= want,
              "one asynchronous engine: with %d streams copies and kernels still overlap: %.0f%% "
              "%s (%.0f%% wanted: half of the 1 - 1/%d a pipeline of equal stages reaches)",
              maxn, 100 * better->overlap, order_name(better->order), 100 * want, maxn);
    } else if (shortest < 20 * cost) {
        snprintf(why, sizeof why,
                 "the operations take %.0f us or less, under 20 times the %.1f us "
                 "an operation costs: the events' few microseconds of lag are too much of them",
                 1e3 * shortest, 1e3 * cost);
        not_judged(why, "with %d streams copies and kernels overlap as in the model", maxn);
    } else if (!steady(run_spread(better) > m->spread ? run_spread(better) : m->spread, why,
                       sizeof why)) {
        /* a pace that moved (a neighbour's copies) changes the balance the model was timed at */
        not_judged(why,
                   "with %d streams copies and kernels overlap as in the model (%.0f%% %s, the "
                   "model's timeline %.0f%%)",
                   maxn, 100 * better->overlap, order_name(better->order), 100 * m->overlap);
    } else {
        /* What to expect of this definition: the model's own timeline of this pipeline (step 3's
         * simulation) has an overlap too; the first copy in and the last copy out run alone. */
        claim(better->overlap >= m->overlap - 0.10,
              "with %d streams copies and kernels overlap: %.0f%% %s, the model's timeline of this "
              "pipeline %.0f%% (%.0f%% or more wanted: at most 10 points below it)",
              maxn, 100 * better->overlap, order_name(better->order), 100 * m->overlap,
              100 * m->overlap - 10);
    }
}

/* 4. The timelines of the sequential run and of the widest streamed runs, and their overlap. */
void step_4_timelines(struct findings *f)
{
    const struct run *seq = f->seq;
    int maxn = f->maxn;
    printf(
        "\n4. Timelines (H copy in, K kernel, D copy out, . idle; from events, see IN_DEPTH.md)\n");
    struct run *wide = NULL, *wide_stage = NULL;
    for (int k = 0; k < nruns; k++)
        if (!runs[k].sequential && runs[k].streams == maxn && !runs[k].legacy_between &&
            runs[k].memory == PINNED)
            *(runs[k].order == PER_STREAM ? &wide : &wide_stage) = &runs[k];
    f->wide = wide, f->wide_stage = wide_stage;
    print_timeline("in sequence", seq);
    print_timeline("per stream", wide);
    if (wide_stage)
        print_timeline("by stage", wide_stage);
    printf("   overlap = the time copies and kernels ran together, over the shorter of (the time\n"
           "   some copy ran, the time some kernel ran): %.0f%% in sequence, %.0f%% per stream%s",
           100 * seq->overlap, 100 * wide->overlap, wide_stage ? "" : "\n");
    if (wide_stage)
        printf(", %.0f%% by stage\n", 100 * wide_stage->overlap);
    const struct run *better =
        wide_stage && wide_stage->overlap > wide->overlap ? wide_stage : wide;
    double want = 0.5 * (1 - 1.0 / maxn), allowed = seq->median / model_for(f, maxn)->ideal;
    char why[480];
    if (overlap_decided_here(f, wide, wide_stage, want))
        return;
    if (allowed < 1.02) {
        snprintf(why, sizeof why, "the model allows %.3fx here: overlap can hide at most 2%%",
                 allowed);
        not_judged(why, "with %d streams copies and kernels overlap", maxn);
    } else if (!overlap_with_few_queues(f, wide, wide_stage, want))
        overlap_as_in_the_model(f, better, want);
}
