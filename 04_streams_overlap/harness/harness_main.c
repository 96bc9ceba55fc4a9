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
 * The input comes from the grader's channel (fresh for each grading run; --seed by hand); the
 * grader (tests/exercises) judges the report it reads back there (common/exercise_harness.h).
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

#define MAX_REPS 50

/* Exercise "driver" is linked with --wrap for the copies (harness/driver.wrap): the harness
 * counts the student's Driver API and runtime copies during exercise_issue(). In the other
 * exercises nothing is wrapped, the counters stay 0 and the weak __real_ functions are unused. */
static int counting, driver_copies, runtime_copies;
CUresult __real_cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t b, CUstream s)
    __attribute__((weak));
CUresult __real_cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t b, CUstream s)
    __attribute__((weak));
cudaError_t __real_cudaMemcpyAsync(void *dst, const void *src, size_t b, enum cudaMemcpyKind k,
                                   cudaStream_t s) __attribute__((weak));
CUresult __wrap_cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t b, CUstream s)
{
    driver_copies += counting;
    return __real_cuMemcpyHtoDAsync_v2(d, h, b, s);
}
CUresult __wrap_cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t b, CUstream s)
{
    driver_copies += counting;
    return __real_cuMemcpyDtoHAsync_v2(h, d, b, s);
}
cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t b, enum cudaMemcpyKind k,
                                   cudaStream_t s)
{
    runtime_copies += counting;
    return __real_cudaMemcpyAsync(dst, src, b, k, s);
}

/* "Return without waiting": right after exercise_issue() returns, some of the work it issued
 * is still running (a stream not idle yet); counted over the runs. */
static int issue_runs, issue_busy;

/* Exercises "legacy" and "driver" (harness/NAME.wrap names cudaMemsetAsync): the library's
 * memsets in the legacy default stream during exercise_issue() are counted, so that the
 * memset stays where the exercise puts it (stream 0, one per chunk) while the streams change. */
static int legacy_memsets;
cudaError_t __real_cudaMemsetAsync(void *d, int v, size_t b, cudaStream_t s) __attribute__((weak));
cudaError_t __wrap_cudaMemsetAsync(void *d, int v, size_t b, cudaStream_t s)
{
    cudaError_t e = __real_cudaMemsetAsync(d, v, b, s);
    legacy_memsets += counting && e == cudaSuccess && (s == 0 || s == cudaStreamLegacy);
    return e;
}

static bool counted_issue(const struct pipeline *p)
{
    counting = 1;
    bool ok = exercise_issue(p);
    counting = 0;
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

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--elements N] [--streams N] [--work N] [--reps N] [--seed N]\n"
            "A 04_streams_overlap exercise: times your pipeline (pipeline.c) against the same\n"
            "work in sequence, checks its result, and passes at the pass mark it prints: half\n"
            "way from 1x to the speed-up the pipeline's model allows on this card.\n"
            "  -d, --device N     the GPU to use (default 0)\n"
            "  -n, --elements N   floats to process (default 16777216 = 64 MiB each way)\n"
            "  -s, --streams N    chunks and streams (default 8, 2 to %d)\n"
            "  -w, --work N|auto  multiply-adds per element (default auto: the kernel takes\n"
            "                     about 1.2x a copy on this card)\n"
            "  -r, --reps N       timed repetitions of each after a warm-up (default 5)\n"
            "  -S, --seed N       the input's seed (default 1)\n"
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
    if (!checkRuntime(cudaMemset(p->dev_out, POISON, p->n * sizeof(float))) ||
        !checkRuntime(cudaMemset(p->dev_in, POISON, p->n * sizeof(float))) ||
        !checkRuntime(cudaDeviceSynchronize()))
        return false;
    double t0 = host_ms();
    if (!issue(p) || !checkRuntime(cudaDeviceSynchronize()))
        return false;
    *ms = host_ms() - t0;
    return true;
}

/* The sequential baseline and your pipeline, one warm-up each, then `reps` of each in turn
 * (sequential, pipeline, sequential, ...), so that a slow moment of the machine falls on
 * both; the fastest of each counts (a busy host only ever adds time). Every run starts from
 * poisoned buffers: `ref` gets the baseline's first result, and every run of the pipeline is
 * compared with it (*differ: the runs that were not identical). */
static bool timed_pair(const struct pipeline *p, bool (*pipeline)(const struct pipeline *),
                       int reps, float *ref, double *t_seq, double *t_pipe, int *differ)
{
    *t_seq = *t_pipe = 1e30;
    *differ = 0;
    for (int rep = -1; rep < reps; rep++) {
        double a, b;
        if (!time_one(p, sequential, &a))
            return false;
        if (rep == -1)
            memcpy(ref, p->host_out, p->n * sizeof(float));
        if (!time_one(p, pipeline, &b))
            return false;
        *differ += memcmp(p->host_out, ref, p->n * sizeof(float)) != 0;
        if (rep >= 0) {
            *t_seq = a < *t_seq ? a : *t_seq;
            *t_pipe = b < *t_pipe ? b : *t_pipe;
        }
    }
    return true;
}

/* The model, the sequential baseline, your pipeline, and the claims. False: a CUDA call failed. */
static bool judge(struct pipeline *p, float *ref, bool auto_work, int reps, long device,
                  const char *name, int engines)
{
    size_t bytes = p->n * sizeof(float);
    double st[3], allowed;
    if (!model(p, auto_work, reps, engines, st, &allowed))
        return false;
    double pass_mark = 1 + 0.5 * (allowed - 1);
    printf("%s on device %ld, \"%s\": %zu floats, %d streams, work %d%s\n", lesson_prog, device,
           name, p->n, p->streams, p->work,
           auto_work ? " (auto: the kernel about 1.2x a copy)" : "");
    printf("the model (stages alone, pinned): copy in %.2f ms, kernel %.2f ms, copy out %.2f ms;\n"
           "%d chunks allow at most %.2fx over the sequential sum (%d copy engine%s%s)\n",
           st[0], st[1], st[2], p->streams, allowed, engines, engines == 1 ? "" : "s",
           engines < 2 ? ": the copies in and out take turns" : "");

    double t_seq, t_pipe;
    int differ = 0;
    if (!timed_pair(p, counted_issue, reps, ref, &t_seq, &t_pipe, &differ))
        return false;
    size_t stride = p->n / 4096 ? p->n / 4096 : 1, wrong = 0;
    for (size_t i = 0; i < p->n; i += stride) {
        float want = work_on_host(p->host_in[i], p->work);
        wrong += memcmp(&want, &ref[i], sizeof want) != 0;
    }
    bool same = differ == 0 && memcmp(p->host_out, ref, bytes) == 0;
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
    /* For the grader: the same facts, and sums it can check against the seed. */
    harness_report("result", "%s %s", wrong == 0 ? "right" : "wrong",
                   same ? "identical" : "different");
    harness_report("speedup", "%.3f %.3f %.3f", t_seq / t_pipe, pass_mark, allowed);
    harness_report("copies", "%d %d", driver_copies,
                   runtime_copies); /* "driver" only: see the top */
    harness_report("returned_busy", "%d %d", issue_busy, issue_runs);
    harness_report("legacy_memsets", "%d %d", legacy_memsets, issue_runs * p->streams);
    harness_report("runs_different", "%d %d", differ, reps + 1);
    return true;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    long device = 0, elements = 16L << 20, streams = 8, work = 0 /* auto */, reps = 5, seed = 1;
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},  {"elements", required_argument, NULL, 'n'},
        {"streams", required_argument, NULL, 's'}, {"work", required_argument, NULL, 'w'},
        {"reps", required_argument, NULL, 'r'},    {"help", no_argument, NULL, 'h'},
        {"seed", required_argument, NULL, 'S'},    {NULL, 0, NULL, 0},
    };
    int opt;
    bool good = true;
    while (good && (opt = getopt_long(argc, argv, "d:n:s:w:r:S:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &device); break;
        case 'n': good = parse_long(optarg, 1024, 1L << 30, "--elements", &elements); break;
        case 's': good = parse_long(optarg, 2, HARNESS_MAX_STREAMS, "--streams", &streams); break;
        case 'w':
            if (strcmp(optarg, "auto") == 0)
                work = 0;
            else
                good = parse_long(optarg, 1, 1000000, "--work (or 'auto')", &work);
            break;
        case 'r': good = parse_long(optarg, 1, MAX_REPS, "--reps", &reps); break;
        case 'S': good = parse_long(optarg, 1, 2147483646L, "--seed", &seed); break;
        case 'h': usage(stdout); return EXIT_OK;
        default: good = false; break;
        }
    }
    if (good && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        good = false;
    }
    if (!good) {
        usage(stderr);
        return EXIT_USAGE;
    }
    /* The grader gives the seed on its channel (common/exercise_harness.h), never in argv. */
    long channel_seed = 0;
    if (harness_channel_open(&channel_seed))
        seed = channel_seed;

    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return verdict(false); /* a failure that is not "cannot run here": exit 1 */
    if (device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s)\n",
                lesson_prog, device, count);
        return EXIT_USAGE;
    }
    bool ok = true;
    cudaStream_t stream[HARNESS_MAX_STREAMS] = {0};
    struct pipeline p = {
        .streams = (int)streams, .n = (size_t)elements, .work = (int)work, .stream = stream};
    size_t bytes = p.n * sizeof(float);
    float *ref = NULL;
    struct cudaDeviceProp prop;
    int engines = 2;
    /* cudaFree(NULL) makes sure the device's primary context exists and is current, so that an
     * exercise may allocate with the Driver API (exercise "driver") in the runtime's context. */
    if (!checkRuntime(cudaSetDevice((int)device)) || !checkRuntime(cudaFree(NULL)) ||
        !checkRuntime(cudaGetDeviceProperties(&prop, (int)device)) ||
        !checkRuntime(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, (int)device))) {
        ok = false;
        goto cleanup;
    }
    p.host_in = exercise_host_alloc(bytes);
    p.host_out = exercise_host_alloc(bytes);
    ref = malloc(bytes);
    /* two buffers, not one (nor overlapping): "buffers distinct" */
    if (p.host_in && p.host_out) {
        uintptr_t a = (uintptr_t)p.host_in, b = (uintptr_t)p.host_out;
        harness_report("buffers", "%s", a + bytes <= b || b + bytes <= a ? "distinct" : "overlap");
    }
    if (!p.host_in || !p.host_out || !ref) {
        fprintf(stderr, "%s: could not allocate the host buffers (%zu bytes each)\n", lesson_prog,
                bytes);
        ok = false;
        goto cleanup;
    }
    if (!checkRuntime(cudaMalloc((void **)&p.dev_in, bytes)) ||
        !checkRuntime(cudaMalloc((void **)&p.dev_out, bytes)) ||
        !checkRuntime(cudaMalloc((void **)&p.dev_counter, sizeof(int))) ||
        !checkRuntime(cudaMemset(p.dev_counter, 0, sizeof(int))) ||
        !exercise_create_streams(stream, p.streams)) {
        ok = false;
        goto cleanup;
    }
    /* n streams of their own: none NULL, no two the same */
    const char *made = "distinct";
    for (int i = 0; i < p.streams; i++)
        for (int j = 0; j <= i; j++)
            if (!stream[i] || (j < i && stream[j] == stream[i]))
                made = stream[i] ? "repeated" : "null";
    harness_report("streams", "%s", made);
    /* "NULL when it cannot be had": 4 EiB (more than any machine has) */
    float *huge = exercise_host_alloc((size_t)1 << 62);
    harness_report("too_big", "%s", huge ? "given" : "NULL");
    if (huge)
        exercise_host_free(huge);
    (void)cudaGetLastError(); /* the failed allocation is no error of the runs that follow */
    /* Fresh input from the seed: values in [-1, 1), as work_input() gives (MINSTD). */
    uint64_t s = harness_case_seed((uint32_t)seed, 0);
    for (size_t i = 0; i < p.n; i++) {
        s = s * 48271u % 2147483647u;
        p.host_in[i] = (float)(s % 65536u) / 32768.0f - 1.0f;
    }
    harness_report("input", "%zu %d %.1f", p.n, p.streams, harness_sum(p.host_in, p.n) * 32768.0);
    ok = judge(&p, ref, work == 0, (int)reps, device, prop.name, engines);

cleanup:
    for (int i = 0; i < p.streams; i++)
        if (stream[i])
            ok = checkRuntime(cudaStreamDestroy(stream[i])) && ok;
    if (p.dev_counter)
        ok = checkRuntime(cudaFree(p.dev_counter)) && ok;
    if (p.dev_out)
        ok = checkRuntime(cudaFree(p.dev_out)) && ok;
    if (p.dev_in)
        ok = checkRuntime(cudaFree(p.dev_in)) && ok;
    if (p.host_in)
        exercise_host_free(p.host_in);
    if (p.host_out)
        exercise_host_free(p.host_out);
    /* What exercise_host_free left page-locked is a leak: ask the runtime. */
    int kept = 0;
    float *host[2] = {p.host_in, p.host_out};
    for (int i = 0; i < 2; i++) {
        struct cudaPointerAttributes a;
        kept += host[i] && cudaPointerGetAttributes(&a, host[i]) == cudaSuccess &&
                a.type == cudaMemoryTypeHost;
    }
    (void)cudaGetLastError();
    free(ref);
    if (ok)
        harness_report("host_buffers_kept", "%d", kept);
    (void)harness_end((uint32_t)seed, ok); /* the report: after the last call of pipeline.c */
    return verdict(ok);
}
