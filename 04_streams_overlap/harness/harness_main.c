/*
 * 04_streams_overlap/harness/harness_main.c - the fixed part of every exercise, built from the
 * teacher's tree with the student's pipeline.c (common/lesson.mk: exercises/NAME/files names the
 * one file that is the student's; main() and the kernel, harness/kernel.cu, are the harness's).
 *
 *   1. allocate (host memory through your exercise_host_alloc) and make your streams;
 *   2. the sequential baseline: the whole copy in, kernel and copy out in your first
 *      stream, one after the other; its result checked against the host bit for bit;
 *   3. your pipeline (exercise_issue), timed from the call to cudaDeviceSynchronize's
 *      return (host time: it also counts any time your calls keep the host waiting), in turn
 *      with the baseline, the fastest of each counting (a busy host only adds time);
 *   4. the claims: same result bit for bit, and faster than the baseline by at least the pass
 *      mark, which comes from this run on this card: half way from 1x to the best speed-up
 *      the pipeline's model allows (the three stages timed alone from pinned memory: with two
 *      copy engines, the slowest stage plus one chunk of each of the others; with one, the
 *      copies in and out share it: the longer of both copies and the kernel, plus one chunk
 *      of the shorter), so that a correct pipeline passes on any card and one that does not
 *      overlap fails on any card.
 *   5. graded (a grader's channel, --clocked N from the grader): batches of N runs of each
 *      version, in turn, every run on an input from a seed the judge draws for that run, its
 *      output checked by the judge at positions it picks after the run, from the whole output,
 *      and timed by the judge from the moment the input is made to its pick (clocked_runs):
 *      the point for speed rests on that clock, over runs it checked; the times measured here
 *      are in-process evidence and must agree with it (grading/judge).
 * The input comes from the grader's channel, asked for once your buffers and streams exist
 * (fresh for each grading run; --seed by hand); the grader judges the report it reads back
 * there (grading/harness/exercise_harness.h).
 * --work auto (the default) sets the kernel's work so that it takes about 1.2x a copy on this
 * card, as the lesson does: a balance where overlap can pay off.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "exercise_harness.h"
#include "harness_watch.h"
#include "observe.h"

/* What pipeline.c's calls make and leave, by the stand-in driver whatever API made it
 * ("resources_NAME"): exercise_host_alloc() one page-locked buffer at most (a registration
 * counts as one), kept; exercise_create_streams() its n streams, kept; exercise_issue() (its
 * first run) nothing left. Modules and libraries are not judged: the runtime's lazy loading
 * makes its own at a first launch (harness_watch_take_lazy). */
static const bool host_once[DRIVER_WATCH_KINDS] = {
    [DRIVER_WATCH_PINNED] = true, [DRIVER_WATCH_REGISTERED] = true};
static const long host_kept[DRIVER_WATCH_KINDS] = {
    [DRIVER_WATCH_PINNED] = 1, [DRIVER_WATCH_REGISTERED] = 1};

/* exercise_host_alloc() in a window of its own: "resources_NAME". */
static float *watched_host_alloc(const char *name, size_t bytes)
{
    struct harness_watch w = harness_watch_take_lazy();
    float *p = exercise_host_alloc(bytes);
    harness_watch_check_kept(name, &w, host_once, host_kept);
    return p;
}

/* The judge's --fail-at N: the Nth watched call from exercise_host_alloc() on fails; a failure
 * that came must give NULL ("host memory ... NULL when it cannot be had": memory that is not
 * page-locked is no answer where pinned memory was asked for), and nothing may be left
 * ("fail_came", "host_alloc", "resources_fail"). exercise_host_free() returns nothing, so no
 * failure of its own can be checked: the failure is armed over the allocation only. */
static int failure_run(size_t bytes, long n)
{
    uint32_t seed = harness_seed_now();
    struct harness_watch w = harness_watch_take_lazy();
    harness_watch_fail_at(n);
    float *p = exercise_host_alloc(bytes);
    bool came = harness_watch_judge();
    harness_report("host_alloc", "%s", p ? "given" : "NULL");
    if (p && !came)
        exercise_host_free(p);
    harness_watch_check("fail", &w, host_once);
    return harness_end(seed, true);
}

#define MAX_REPS 50

/* The command line. */
struct options {
    long device, elements, streams, work /* 0: auto */, reps, seed;
};

/* "Return without waiting": right after exercise_issue() returns, some of the work it issued
 * is still running (a stream not idle yet); counted over the runs. */
static int issue_runs, issue_busy;

static bool counted_issue(const struct pipeline *p)
{
    static bool watched; /* the first run, in a window of its own (the others untouched) */
    struct harness_watch w = {0};
    if (!watched)
        w = harness_watch_take_lazy();
    harness_observed.counting = 1;
    bool ok = exercise_issue(p);
    harness_observed.counting = 0;
    if (!watched)
        harness_watch_check("pipeline", &w, NULL);
    watched = true;
    bool busy = false;
    for (int i = 0; i < p->streams && !busy; i++)
        busy = p->stream[i] && cudaStreamQuery(p->stream[i]) == cudaErrorNotReady;
    busy = busy || cudaStreamQuery(0) == cudaErrorNotReady;
    (void)cudaGetLastError(); /* a query's "not ready" is no error of the pipeline's */
    issue_runs++;
    issue_busy += busy;
    return ok;
}

/* The poison of every buffer before each run: 0x7f bytes, the float 3.39e38 (no NaN, which a
 * copy of a NaN reproduces; no value the work gives from inputs in [-1, 1)). */
#define POISON 0x7f

/* Floats past the end of each device buffer that belong to nobody: poisoned before each timed
 * run and read back after it (a chunk copied or computed past p->n shows there, where the
 * result itself may still look right). 64 chunks of a block of 256 fit in it. */
#define GUARD 65536
static int guard_runs, guard_touched;

/* Whether the GUARD floats past dev_in's and dev_out's end still hold only POISON bytes;
 * false (and *touched set) when a run wrote there. False too when a CUDA call failed. */
static bool guards_intact(const struct pipeline *p, bool *touched)
{
    static unsigned char back[GUARD * sizeof(float)];
    float *dev[2] = {p->dev_in, p->dev_out};
    *touched = false;
    for (int b = 0; b < 2; b++) {
        if (!checkRuntime(cudaMemcpy(back, dev[b] + p->n, sizeof back, cudaMemcpyDeviceToHost)))
            return false;
        for (size_t i = 0; i < sizeof back && !*touched; i++)
            *touched = back[i] != POISON;
    }
    return true;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--elements N] [--streams N] [--work N] [--reps N] [--seed N]\n"
            "          [--clocked N]\n"
            "A 04_streams_overlap exercise: times your pipeline (pipeline.c) against the same\n"
            "work in sequence, checks its result, and passes at the pass mark it prints: half\n"
            "way from 1x to the speed-up the pipeline's model allows on this card.\n"
            "  -d, --device N     the GPU to use (default 0)\n"
            "  -n, --elements N   floats to process (default 16777216 = 64 MiB each way)\n"
            "  -s, --streams N    chunks and streams (default 8, 2 to %d)\n"
            "  -w, --work N|auto  multiply-adds per element (default auto: the kernel takes\n"
            "                     about 1.2x a copy on this card)\n"
            "  -r, --reps N       timed repetitions of each after a warm-up (default 5, at most\n"
            "                     50); 0: the result only (one run of each, no model, no speed\n"
            "                     judged, one round of clocked runs; needs --work N)\n"
            "  -S, --seed N       the input's seed (default 1; graded: the grader's)\n"
            "  -c, --clocked N    graded: the runs of each batch the grader times by its own\n"
            "                     clock, each on an input from its own seed (default 0: none)\n"
            "  -h, --help         this text\n"
            "exit status: 0 passed, 1 a check or CUDA call failed, 2 bad command line, 77 no GPU\n",
            lesson_prog, HARNESS_MAX_STREAMS);
}

static bool sequential(const struct pipeline *p)
{
    cudaStream_t s = p->stream[0];
    return checkRuntime(cudaMemcpyAsync(p->dev_in, p->host_in, p->n * sizeof(float),
                                        cudaMemcpyHostToDevice, s)) &&
           checkRuntime(launch_work(p->dev_in, p->dev_out, p->n, p->work, s)) &&
           checkRuntime(cudaMemcpyAsync(p->host_out, p->dev_out, p->n * sizeof(float),
                                        cudaMemcpyDeviceToHost, s));
}

/* One stage of the whole job alone in stream s, from pinned memory: median event time of
 * `reps` after a warm-up. op: 0 copy in, 1 kernel, 2 copy out. */
static bool stage_alone(const struct pipeline *p, float *pinned, int op, int reps, double *ms)
{
    double t[MAX_REPS];
    cudaEvent_t a = NULL, b = NULL;
    cudaStream_t s = p->stream[0];
    size_t bytes = p->n * sizeof(float);
    bool ok = checkRuntime(cudaEventCreate(&a)) && checkRuntime(cudaEventCreate(&b));
    for (int rep = -1; ok && rep < reps; rep++) {
        float f = 0;
        ok = checkRuntime(cudaEventRecord(a, s)) &&
             (op == 0 ? checkRuntime(
                            cudaMemcpyAsync(p->dev_in, pinned, bytes, cudaMemcpyHostToDevice, s))
              : op == 1 ? checkRuntime(launch_work(p->dev_in, p->dev_out, p->n, p->work, s))
                        : checkRuntime(cudaMemcpyAsync(pinned, p->dev_out, bytes,
                                                       cudaMemcpyDeviceToHost, s))) &&
             checkRuntime(cudaEventRecord(b, s)) && checkRuntime(cudaEventSynchronize(b)) &&
             checkRuntime(cudaEventElapsedTime(&f, a, b));
        if (rep >= 0)
            t[rep] = f;
    }
    if (a)
        ok = checkRuntime(cudaEventDestroy(a)) && ok;
    if (b)
        ok = checkRuntime(cudaEventDestroy(b)) && ok;
    if (ok)
        *ms = median_of(t, reps);
    return ok;
}

/* The model: the three stages alone from pinned memory; with --work auto, first the work that
 * makes the kernel about 1.2x the slower copy. *allowed: the best speed-up of `streams` chunks
 * over the sequential sum (the slowest stage plus one chunk of each of the others). */
static bool model(struct pipeline *p, bool auto_work, int reps, int engines, double st[3],
                  double *allowed)
{
    float *pinned = NULL;
    bool ok = checkRuntime(cudaMallocHost((void **)&pinned, p->n * sizeof(float)));
    if (ok)
        memcpy(pinned, p->host_in, p->n * sizeof(float));
    ok = ok && stage_alone(p, pinned, 0, reps, &st[0]) && stage_alone(p, pinned, 2, reps, &st[2]);
    if (ok && auto_work) {
        p->work = 256;
        for (int it = 0; ok && it < 3; it++) {
            ok = stage_alone(p, pinned, 1, 3, &st[1]);
            double w = p->work * 1.2 * (st[0] > st[2] ? st[0] : st[2]) / st[1];
            p->work = w < 1 ? 1 : w > 1000000 ? 1000000 : (int)w;
        }
    }
    ok = ok && stage_alone(p, pinned, 1, reps, &st[1]);
    if (pinned)
        ok = checkRuntime(cudaFreeHost(pinned)) && ok;
    if (ok) {
        int slow = st[1] > st[0] ? (st[1] > st[2] ? 1 : 2) : (st[0] > st[2] ? 0 : 2);
        double ideal = st[slow] + (st[0] + st[1] + st[2] - st[slow]) / p->streams;
        if (engines < 2) { /* one copy engine: the copies in and out take turns on it */
            double copies = st[0] + st[2], longer = copies > st[1] ? copies : st[1];
            ideal = longer + (copies + st[1] - longer) / p->streams;
        }
        *allowed = (st[0] + st[1] + st[2]) / ideal;
    }
    return ok;
}

/* One run of `issue`, host time from the call to cudaDeviceSynchronize's return; first the
 * output on both sides and the device's input are poisoned (POISON), so that a chunk copied
 * into the wrong place, or not at all, shows in the result of this very run. */
static bool time_one(const struct pipeline *p, bool (*issue)(const struct pipeline *), double *ms)
{
    memset(p->host_out, POISON, p->n * sizeof(float));
    bool touched = false;
    if (!checkRuntime(cudaMemset(p->dev_out, POISON, (p->n + GUARD) * sizeof(float))) ||
        !checkRuntime(cudaMemset(p->dev_in, POISON, (p->n + GUARD) * sizeof(float))) ||
        !checkRuntime(cudaDeviceSynchronize()))
        return false;
    double t0 = host_ms();
    if (!issue(p) || !checkRuntime(cudaDeviceSynchronize()))
        return false;
    *ms = host_ms() - t0;
    if (!guards_intact(p, &touched))
        return false;
    guard_runs++;
    guard_touched += touched;
    return true;
}

/* A 64-bit digest of a result, bit by bit (each pair of floats' bits mixed into one of 16
 * lanes in turn, then the lanes into one): two results that differ anywhere differ here but by
 * a chance of about 2^-64, and no copy of the result is kept (at 2^30 floats, a copy would be
 * 4 GiB more of the grader's memory). Sixteen lanes, each its own chain of multiplies, at the
 * build's -O2: a GiB in 89-166 ms on the 2-core CPU machine here, where four lanes took 336-369
 * ms (the 2 GiB chunks' results are 4 GiB, digested twice a run). */
enum { DIGEST_LANES = 16 };
static uint64_t result_digest(const float *v, size_t n)
{
    uint64_t lane[DIGEST_LANES];
    for (int k = 0; k < DIGEST_LANES; k++)
        lane[k] = (0x9e3779b97f4a7c15u * (uint64_t)(k + 1)) ^ n;
    size_t whole = n - n % (2 * DIGEST_LANES);
    for (size_t i = 0; i < whole; i += 2 * DIGEST_LANES)
        for (int k = 0; k < DIGEST_LANES; k++) {
            uint64_t w;
            memcpy(&w, &v[i + 2 * k], sizeof w);
            lane[k] = (lane[k] ^ w) * 0x100000001b3u;
            lane[k] ^= lane[k] >> 29;
        }
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = whole; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        h = (h ^ bits) * 0x100000001b3u;
    }
    for (int k = 0; k < DIGEST_LANES; k++)
        h = (h ^ lane[k] ^ (lane[k] >> 31)) * 0xff51afd7ed558ccdu;
    return h;
}

/* Elements of the result that the harness checks against the host itself (4096 of them). */
static size_t wrong_on_host(const struct pipeline *p, const float *out)
{
    size_t stride = p->n / 4096 ? p->n / 4096 : 1, wrong = 0;
    for (size_t i = 0; i < p->n; i += stride) {
        float want = work_on_host(p->host_in[i], p->work);
        wrong += memcmp(&want, &out[i], sizeof want) != 0;
    }
    return wrong;
}

/* The sequential baseline and your pipeline, one warm-up each, then `reps` of each in turn
 * (sequential, pipeline, sequential, ...), so that a slow moment of the machine falls on
 * both; the fastest of each counts (a busy host only ever adds time). Every run starts from
 * poisoned buffers: the baseline's first result is checked against the host (*wrong: the
 * elements of wrong_on_host's sample that are not right) and its digest kept, and every run of
 * the pipeline is compared with it (*differ: the runs that were not identical). */
static bool timed_pair(const struct pipeline *p, bool (*pipeline)(const struct pipeline *),
                       int reps, size_t *wrong, double *t_seq, double *t_pipe, int *differ)
{
    uint64_t ref = 0;
    *t_seq = *t_pipe = 1e30;
    *differ = 0;
    for (int rep = -1; rep < reps; rep++) {
        double a, b;
        if (!time_one(p, sequential, &a))
            return false;
        if (rep == -1) {
            *wrong = wrong_on_host(p, p->host_out);
            ref = result_digest(p->host_out, p->n);
        }
        if (!time_one(p, pipeline, &b))
            return false;
        *differ += result_digest(p->host_out, p->n) != ref;
        if (rep >= 0) {
            *t_seq = a < *t_seq ? a : *t_seq;
            *t_pipe = b < *t_pipe ? b : *t_pipe;
        }
    }
    return true;
}

/* What the run shows: the model, the times, the claims. */
static void print_run(const struct pipeline *p, const struct options *o, const char *name,
                      int engines, const double st[3], double allowed)
{
    printf("%s on device %ld, \"%s\": %zu floats, %d streams, work %d%s\n", lesson_prog, o->device,
           name, p->n, p->streams, p->work,
           o->work == 0 ? " (auto: the kernel about 1.2x a copy)" : "");
    printf("the model (stages alone, pinned): copy in %.2f ms, kernel %.2f ms, copy out %.2f ms;\n"
           "%d chunks allow at most %.2fx over the sequential sum (%d copy engine%s%s)\n",
           st[0], st[1], st[2], p->streams, allowed, engines, engines == 1 ? "" : "s",
           engines < 2 ? ": the copies in and out take turns" : "");
}

/* The report for the grader: the same facts, and the calls it saw. */
static void report_run(const struct pipeline *p, bool right, bool same, double t_seq, double t_pipe,
                       double mark, double allowed, int differ, int reps)
{
    struct observed *o = &harness_observed;
    harness_report("result", "%s %s", right ? "right" : "wrong", same ? "identical" : "different");
    harness_report("speedup", "%.3f %.3f %.3f", t_seq / t_pipe, mark, allowed);
    harness_report("copies", "%d %d", o->driver_copies, o->runtime_copies);
    harness_report("returned_busy", "%d %d", issue_busy, issue_runs);
    harness_report("legacy_memsets", "%d %d", o->legacy_memsets, issue_runs * p->streams);
    harness_report("runs_different", "%d %d", differ, reps + 1);
    harness_report("past_the_end", "%d %d", guard_touched, guard_runs);
}

/* --reps 0: one run of the sequential version and one of your pipeline (timed_pair's warm-up),
 * their results checked as every run's are, and no model and no speed: at 2^30 floats (the
 * grader's 2 GiB chunks, a test of 26-28 s on an H200 with --reps 1) the model and the timed
 * repetitions judge nothing, and each pass over 4 GiB each way costs time. */
static bool result_only(struct pipeline *p, const struct options *o, const char *name)
{
    double t_seq, t_pipe;
    size_t wrong = 0;
    int differ = 0;
    printf(
        "%s on device %ld, \"%s\": %zu floats, %d streams, work %d; the result only (--reps 0)\n",
        lesson_prog, o->device, name, p->n, p->streams, p->work);
    if (!timed_pair(p, counted_issue, 0, &wrong, &t_seq, &t_pipe, &differ))
        return false;
    claim(wrong == 0, "the sequential result matches the host's bit for bit");
    claim(differ == 0, "your pipeline's result is identical to the sequential one");
    not_judged("--reps 0 runs each once, with no model", "your pipeline's speed");
    /* no speed: 0 for it, the pass mark and what the model allows */
    report_run(p, wrong == 0, differ == 0, 0, 1, 0, 0, differ, 0);
    return true;
}

/* The model, the sequential baseline, your pipeline, and the claims. False: a CUDA call
 * failed. */
static bool judge(struct pipeline *p, const struct options *o, const char *name, int engines)
{
    if (o->reps == 0) /* the result only (the grader's largest sizes) */
        return result_only(p, o, name);
    double st[3], allowed, t_seq, t_pipe;
    int differ = 0, reps = (int)o->reps;
    if (!model(p, o->work == 0, reps, engines, st, &allowed))
        return false;
    double pass_mark = 1 + 0.5 * (allowed - 1);
    size_t wrong = 0;
    print_run(p, o, name, engines, st, allowed);
    if (!timed_pair(p, counted_issue, reps, &wrong, &t_seq, &t_pipe, &differ))
        return false;
    bool same = differ == 0; /* every run of the pipeline, the last one too */
    printf("sequential:    %8.2f ms (the fastest of %d, taken in turn with your pipeline's)\n",
           t_seq, reps);
    printf("your pipeline: %8.2f ms (the fastest of %d)\n", t_pipe, reps);
    printf("speed-up:      %8.2fx\n", t_seq / t_pipe);
    printf("pass mark:     %8.2fx (half way from 1x to the %.2fx the model allows)\n", pass_mark,
           allowed);
    claim(wrong == 0, "the sequential result matches the host's bit for bit");
    claim(same, "your pipeline's result is identical to the sequential one");
    claim(t_seq / t_pipe >= pass_mark,
          "your pipeline runs at %.2fx the sequential run's speed (%.2fx needed: the pass mark)",
          t_seq / t_pipe, pass_mark);
    report_run(p, wrong == 0, same, t_seq, t_pipe, pass_mark, allowed, differ, reps);
    return true;
}

/* Graded: the runs the judge times by its own clock (grading/judge/04_streams_overlap.bats).
 * --clocked N (the judge's count): CLOCK_ROUNDS rounds of a batch of N runs of each kind in
 * turn: the input made and picked alone ("check"), the sequential version, your pipeline. Each
 * run: "fresh KINDr_i", the seed the judge draws for this run's input, made over the whole of
 * host_in from it (harness_input_fill: nothing kept from an earlier run is right for it);
 * "at KINDr_i_start", the input is made; the run and cudaDeviceSynchronize; then "pick
 * KINDr_i": the values at the positions the judge picks now, over the whole of host_out
 * (host_in for "check": the input itself). The judge's time of a run is from the second to
 * the third, so making the input on the host (tens of milliseconds for a large one, against a
 * few of GPU work) is outside it; it computes the values due itself. Reports "clocked RUNS
 * WORK WRONG": WRONG, the runs whose picks the harness found wrong itself (in-process: the
 * judge's own check must agree). */
#define CLOCK_ROUNDS 3
static long clocked_count; /* --clocked N: runs in each batch; 0: no clocked runs */

/* One clocked run of kind 0 (check), 1 (sequential) or 2 (pipeline) named `name`; *wrong
 * counts the runs whose picks were wrong. False: a CUDA call failed or the channel broke. */
static bool clocked_run(const struct pipeline *p, int kind, const char *name, long *wrong)
{
    uint32_t seed = harness_fresh_seed(name);
    harness_input_fill(p->host_in, p->n, seed);
    char start[64];
    snprintf(start, sizeof start, "%s_start", name);
    harness_mark(start); /* the judge's clock for this run starts: its input is made */
    if (kind &&
        (!(kind == 2 ? counted_issue(p) : sequential(p)) || !checkRuntime(cudaDeviceSynchronize())))
        return false;
    uint64_t at[PICK_COUNT];
    const float *out = kind ? p->host_out : p->host_in;
    if (!harness_pick(name, out, p->n, at))
        return false;
    int bad = 0;
    for (int k = 0; k < PICK_COUNT; k++) {
        float want = harness_input_value(seed, at[k]);
        want = kind ? work_on_host(want, p->work) : want;
        bad += memcmp(&want, &out[at[k]], sizeof want) != 0;
    }
    *wrong += bad != 0;
    return true;
}

/* The clocked runs, `rounds` x 3 batches of clocked_count runs (the judge's count): rounds is
 * CLOCK_ROUNDS, or 1 with --reps 0 (the result only: the judge's picks of every kind, no speed). */
static bool clocked_runs(const struct pipeline *p, int rounds)
{
    static const char *const kind[3] = {"check", "sequential", "pipeline"};
    long wrong = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 3; k++)
            for (long i = 0; i < clocked_count; i++) {
                char name[48];
                snprintf(name, sizeof name, "%s%d_%ld", kind[k], r, i);
                if (!clocked_run(p, k, name, &wrong))
                    return false;
            }
    harness_report("clocked", "%ld %d %ld", clocked_count, p->work, wrong);
    return true;
}

static const struct option long_options[] = {
    {"device", required_argument, NULL, 'd'},
    {"elements", required_argument, NULL, 'n'},
    {"streams", required_argument, NULL, 's'},
    {"work", required_argument, NULL, 'w'},
    {"reps", required_argument, NULL, 'r'},
    {"help", no_argument, NULL, 'h'},
    {"seed", required_argument, NULL, 'S'},
    {"clocked", required_argument, NULL, 'c'},
    {NULL, 0, NULL, 0},
};

/* The command line into *o: -1 when it is good, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
    int opt;
    bool good = true;
    while (good && (opt = getopt_long(argc, argv, "d:n:s:w:r:S:c:h", long_options, NULL)) != -1) {
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &o->device); break;
        case 'n': good = parse_long(optarg, 1024, 1L << 30, "--elements", &o->elements); break;
        case 's':
            good = parse_long(optarg, 2, HARNESS_MAX_STREAMS, "--streams", &o->streams);
            break;
        case 'w':
            o->work = 0;
            good = strcmp(optarg, "auto") == 0 ||
                   parse_long(optarg, 1, 1000000, "--work (or 'auto')", &o->work);
            break;
        case 'r': good = parse_long(optarg, 0, MAX_REPS, "--reps", &o->reps); break;
        case 'S': good = parse_long(optarg, 1, 2147483646L, "--seed", &o->seed); break;
        case 'c': good = parse_long(optarg, 0, 1000, "--clocked", &clocked_count); break;
        case 'h': usage(stdout); return EXIT_OK;
        default: good = false; break;
        }
    }
    const char *why = optind < argc ? "an unexpected argument"
                      : good && o->reps == 0 && o->work == 0
                          ? "--reps 0 (the result only) needs --work N: the model that chooses the "
                            "work is not run"
                          : NULL;
    if (good && why)
        fprintf(stderr, "%s: %s\n", lesson_prog, why);
    if (!good || why) {
        usage(stderr);
        return EXIT_USAGE;
    }
    return -1;
}

/* What each exercise changes, read back without a clock: page-locked host buffers, and streams
 * that the legacy default stream does not join. */
static void report_changes(const struct pipeline *p)
{
    int pinned = 0, nonblocking = 0;
    for (int i = 0; i < 2; i++) {
        struct cudaPointerAttributes a;
        pinned += cudaPointerGetAttributes(&a, i ? p->host_out : p->host_in) == cudaSuccess &&
                  a.type == cudaMemoryTypeHost;
    }
    for (int i = 0; i < p->streams; i++) {
        unsigned int flags = 0;
        nonblocking += p->stream[i] && cudaStreamGetFlags(p->stream[i], &flags) == cudaSuccess &&
                       (flags & cudaStreamNonBlocking);
    }
    (void)cudaGetLastError();
    harness_report("host_pinned", "%d", pinned);
    harness_report("streams_nonblocking", "%d %d", nonblocking, p->streams);
}

/* exercise_create_streams(), counted; the stand-in's window keeps its streams alone. */
static bool watched_create_streams(struct pipeline *p)
{
    long streams_kept[DRIVER_WATCH_KINDS] = {[DRIVER_WATCH_STREAM] = p->streams};
    struct harness_watch w = harness_watch_take_lazy();
    harness_observed.counting = 1;
    bool made = exercise_create_streams(p->stream, p->streams);
    harness_observed.counting = 0;
    harness_watch_check_kept("create_streams", &w, NULL, streams_kept);
    return made;
}

/* "NULL when it cannot be had": 4 EiB; a failed allocation leaves nothing. */
static void too_big(void)
{
    struct harness_watch w = harness_watch_take_lazy();
    float *huge = exercise_host_alloc((size_t)1 << 62);
    harness_report("too_big", "%s", huge ? "given" : "NULL");
    if (huge)
        exercise_host_free(huge);
    harness_watch_check("too_big", &w, NULL);
}

/* Buffers, streams and input through pipeline.c's functions, each checked as the header
 * promises (two distinct host buffers, n distinct streams made once, NULL for 4 EiB); the
 * input from the seed. False: a call failed. */
static bool set_up(struct pipeline *p)
{
    size_t bytes = p->n * sizeof(float);
    p->host_in = watched_host_alloc("host_alloc", bytes);
    p->host_out = watched_host_alloc("host_alloc_out", bytes);
    if (p->host_in && p->host_out) { /* two buffers, not one (nor overlapping) */
        uintptr_t a = (uintptr_t)p->host_in, b = (uintptr_t)p->host_out;
        harness_report("buffers", "%s", a + bytes <= b || b + bytes <= a ? "distinct" : "overlap");
    }
    if (!p->host_in || !p->host_out) {
        fprintf(stderr, "%s: could not allocate the host buffers (%zu bytes each)\n", lesson_prog,
                bytes);
        return false;
    }
    bool made = watched_create_streams(p);
    if (!checkRuntime(cudaMalloc((void **)&p->dev_in, bytes + GUARD * sizeof(float))) ||
        !checkRuntime(cudaMalloc((void **)&p->dev_out, bytes + GUARD * sizeof(float))) ||
        !checkRuntime(cudaMalloc((void **)&p->dev_counter, sizeof(int))) ||
        !checkRuntime(cudaMemset(p->dev_counter, 0, sizeof(int))) || !made)
        return false;
    const char *streams = "distinct"; /* n streams of their own: none NULL, no two the same */
    for (int i = 0; i < p->streams; i++)
        for (int j = 0; j <= i; j++)
            if (!p->stream[i] || (j < i && p->stream[j] == p->stream[i]))
                streams = p->stream[i] ? "repeated" : "null";
    harness_report("streams", "%s %d made", streams, harness_observed.streams_made);
    report_changes(p);
    too_big();
    (void)cudaGetLastError(); /* the failed allocation is no error of the runs that follow */
    return true;
}

/* Fresh input from the seed: values in [-1, 1), each a hash of the seed and its position
 * (grading/harness/pick.h: what the judge's expected_sum and its picks compute alone; 0.2 s for
 * 2^30 values where a MINSTD walk took 1.2 s). */
static void fill_input(struct pipeline *p, uint32_t seed)
{
    harness_input_fill(p->host_in, p->n, seed);
    harness_report("input", "%zu %d %.1f", p->n, p->streams,
                   harness_sum(p->host_in, p->n) * 32768.0);
}

/* Everything given back (the streams and host buffers through pipeline.c's promise: what
 * exercise_host_free left page-locked is a leak, reported). */
static bool clean_up(struct pipeline *p, bool ok)
{
    for (int i = 0; i < p->streams; i++)
        if (p->stream[i])
            ok = checkRuntime(cudaStreamDestroy(p->stream[i])) && ok;
    void *dev[3] = {p->dev_counter, p->dev_out, p->dev_in};
    for (int i = 0; i < 3; i++)
        if (dev[i])
            ok = checkRuntime(cudaFree(dev[i])) && ok;
    float *host[2] = {p->host_in, p->host_out};
    int kept = 0;
    for (int i = 0; i < 2; i++)
        if (host[i])
            exercise_host_free(host[i]);
    for (int i = 0; i < 2; i++) {
        struct cudaPointerAttributes a;
        kept += host[i] && cudaPointerGetAttributes(&a, host[i]) == cudaSuccess &&
                a.type == cudaMemoryTypeHost;
    }
    (void)cudaGetLastError();
    if (ok)
        harness_report("host_buffers_kept", "%d", kept);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long fail_at = harness_watch_fail_arg(&argc, argv); /* the judge's --fail-at N */
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    struct options o = {.elements = 16L << 20, .streams = 8, .reps = 5, .seed = 1};
    int bad = parse_options(argc, argv, &o);
    if (bad >= 0)
        return bad;
    bool graded = harness_channel_open(); /* the grader's channel: its seed comes later */
    int count = 0, engines = 2;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return verdict(false); /* a failure that is not "cannot run here": exit 1 */
    if (o.device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s)\n",
                lesson_prog, o.device, count);
        return EXIT_USAGE;
    }
    cudaStream_t stream[HARNESS_MAX_STREAMS] = {0};
    struct pipeline p = {
        .streams = (int)o.streams, .n = (size_t)o.elements, .work = (int)o.work, .stream = stream};
    struct cudaDeviceProp prop;
    /* cudaFree(NULL) makes sure the device's primary context exists and is current, so that an
     * exercise may allocate with the Driver API (exercise "driver") in the runtime's context. */
    bool ok =
        checkRuntime(cudaSetDevice((int)o.device)) && checkRuntime(cudaFree(NULL)) &&
        checkRuntime(cudaGetDeviceProperties(&prop, (int)o.device)) &&
        checkRuntime(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, (int)o.device));
    if (ok && fail_at)
        return failure_run((size_t)o.elements * sizeof(float), fail_at);
    ok = ok && set_up(&p);
    if (ok && graded)
        o.seed = harness_seed_now(); /* asked now: your buffers and streams exist */
    if (ok)
        fill_input(&p, (uint32_t)o.seed);
    ok = ok && judge(&p, &o, prop.name, engines);
    if (ok && graded)
        ok = clocked_runs(&p, o.reps == 0 ? 1 : CLOCK_ROUNDS);
    harness_report("copy_kinds", "%d %d", harness_observed.kinds_wrong,
                   harness_observed.kinds_checked);
    ok = clean_up(&p, ok);
    (void)harness_end((uint32_t)o.seed, ok); /* the report: after the last call of pipeline.c */
    return verdict(ok);
}
