/* 03_pinned_memory/proof/measure.c - the measuring apparatus the steps share: the one timing
 * loop ("warm-up, then timed repetitions between a pair of events"), runs timed in turn, and
 * small helpers for sizes, rates, the data pattern and failed allocations. None of it is what
 * the lesson teaches (that is ../core.c, which the steps call). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "lesson.h"
#include "pattern.h"

const char *const kind_name[KINDS] = {"pageable", "pinned", "write-combined", "registered"};
const char *const dir_name[DIRS] = {"H2D", "D2H"};
const char *const dir_words[DIRS] = {"host to device", "device to host"};

/* Each repetition is queued whole behind the gate (common/gate.h: the host's delays stay out
 * of the time), but for copies of pageable memory, which wait on the stream to be staged. */
bool time_events(struct lesson *L, int warmups, int reps, enqueue_fn work, void *arg, double *ms)
{
    for (int r = -warmups; r < reps; r++) {
        float f = 0;
        bool ok = (L->ungated || gate_hold(&L->gate, L->stream)) &&
                  checkRuntime(cudaEventRecord(L->start, L->stream)) && work(L, arg) &&
                  checkRuntime(cudaEventRecord(L->stop, L->stream));
        gate_release(&L->gate);
        if (!ok || !checkRuntime(cudaEventSynchronize(L->stop)) ||
            !checkRuntime(cudaEventElapsedTime(&f, L->start, L->stop)))
            return false;
        gate_check(&L->gate);
        if (r >= 0)
            ms[r] = f;
    }
    return true;
}

bool time_copies(struct lesson *L, int warmups, int reps, void *host, size_t bytes, enum dir d,
                 int count, double *ms)
{
    for (int r = -warmups; r < reps; r++) {
        float f = 0;
        bool ok = (L->ungated || gate_hold(&L->gate, L->stream)) &&
                  timed_copies(host, L->dev, bytes, d, count, L->stream, L->start, L->stop);
        gate_release(&L->gate);
        if (!ok || !copies_ms(L->start, L->stop, &f))
            return false;
        gate_check(&L->gate);
        if (r >= 0)
            ms[r] = f;
    }
    return true;
}

bool time_median5_spread(struct lesson *L, enqueue_fn work, void *arg, double *median_ms,
                         double *spread)
{
    double t[5];
    if (!time_events(L, 1, 5, work, arg, t))
        return false;
    double s;
    *median_ms = median_spread(t, 5, &s);
    if (spread)
        *spread = s;
    return true;
}

double median_spread(double *v, int n, double *spread)
{
    double m = median_of(v, n); /* sorts v[] */
    *spread = m > 0 ? (v[n - 1] - v[0]) / m : 0;
    return m;
}

bool time_rounds(struct lesson *L, int warmups, int n, const struct way *ways, int rounds,
                 double *median, double *spread)
{
    double t[8][IN_TURN_MAX], unused;
    bool ok = n <= 8 && rounds <= IN_TURN_MAX;
    for (int i = 0; ok && i < n; i++)
        ok = time_events(L, warmups, 0, ways[i].work, ways[i].arg, &unused);
    for (int r = 0; ok && r < rounds; r++)
        for (int i = 0; ok && i < n; i++)
            ok = time_events(L, 0, 1, ways[i].work, ways[i].arg, &t[i][r]);
    for (int i = 0; ok && i < n; i++) {
        double s;
        median[i] = median_spread(t[i], rounds, &s);
        if (spread)
            spread[i] = s;
    }
    return ok;
}

bool time_in_turn(struct lesson *L, int warmups, enqueue_fn a, void *arg_a, enqueue_fn b,
                  void *arg_b, double *ms_a, double *ms_b)
{
    const struct way ways[2] = {{a, arg_a}, {b, arg_b}};
    double m[2];
    if (!time_rounds(L, warmups, 2, ways, IN_TURN, m, NULL))
        return false;
    *ms_a = m[0];
    *ms_b = m[1];
    return true;
}

bool time_median5(struct lesson *L, enqueue_fn work, void *arg, double *median_ms)
{
    return time_median5_spread(L, work, arg, median_ms, NULL);
}

/* ---- small helpers ------------------------------------------------------------------------ */

bool timings_comparable(const struct lesson *L, size_t bytes, char *why, size_t len)
{
    if (under_tool(why, len))
        return false;
    if (bytes < WIDE) {
        snprintf(why, len, "copies under 16 MiB are too short to time (--max 16M or more)");
        return false;
    }
    if (gpu_shared(why, len))
        return false;
    if (L->pace_n >= 2 && L->pace_max > PACE_BAR * L->pace_min) {
        snprintf(
            why, len,
            "the control copy (%s pinned, host to device, timed %d times during the "
            "run) ran at %.1f to %.1f GB/s, %.2fx apart (more than %.1fx): something else used "
            "the GPU, its link or host memory meanwhile (a neighbour NVML cannot see, in a "
            "container?)",
            fmt_size(PACE_BYTES), L->pace_n, L->pace_min, L->pace_max, L->pace_max / L->pace_min,
            PACE_BAR);
        return false;
    }
    return true;
}

static bool enqueue_pace(struct lesson *L, void *arg)
{
    (void)arg;
    return checkRuntime(
        cudaMemcpyAsync(L->dev, L->pace_host, PACE_BYTES, cudaMemcpyHostToDevice, L->stream));
}

bool pace_sample(struct lesson *L)
{
    gpu_shared_sample();
    if (!L->pace_host) /* --max under 16 MiB: no timing claim is judged anyway */
        return true;
    double ms;
    if (!time_median5(L, enqueue_pace, NULL, &ms))
        return false;
    double rate = gbps(PACE_BYTES, ms);
    L->pace_min = L->pace_n && L->pace_min < rate ? L->pace_min : rate;
    L->pace_max = L->pace_n && L->pace_max > rate ? L->pace_max : rate;
    L->pace_n++;
    return true;
}

size_t side_bytes(const struct lesson *L, size_t cap)
{
    size_t b = L->opt.max < cap ? L->opt.max : cap;
    return b < MIN_SIDE ? MIN_SIDE : b;
}

double gbps(size_t bytes, double ms)
{
    return ms > 0 ? (double)bytes / (ms * 1e6) : 0;
}

const char *fmt_size(size_t bytes)
{
    static char buf[8][32]; /* up to 8 sizes in one printf (step 1's cut line has five) */
    static int next;
    next = (next + 1) % 8;
    return format_bytes(bytes, buf[next], sizeof buf[next]);
}

/* The pattern in words [from, to) of a buffer: written (out) or counted where it is not (in). */
struct share {
    uint32_t *out;
    const uint32_t *in;
    size_t from, to, bad;
    uint32_t seed;
    pthread_t thread;
    bool started;
};

static void *do_share(void *arg)
{
    struct share *s = arg;
    if (s->out)
        for (size_t i = s->from; i < s->to; i++)
            s->out[i] = pattern_word(i, s->seed);
    else
        for (size_t i = s->from; i < s->to; i++)
            s->bad += s->in[i] != pattern_word(i, s->seed);
    return NULL;
}

/* One core writes or checks a GiB in about 0.3 s (an H100 host): from 16 MiB up the buffer is
 * cut among up to 8 of the CPUs this process may run on (its affinity: taskset, a Slurm job).
 * A share whose thread cannot start is done by this one. */
static size_t by_threads(uint32_t *out, const uint32_t *in, size_t words, uint32_t seed)
{
    enum { MAX_THREADS = 8 };
    struct share s[MAX_THREADS];
    int n = 1;
    cpu_set_t cpus;
    if (words >= ((size_t)4 << 20) && sched_getaffinity(0, sizeof cpus, &cpus) == 0)
        n = CPU_COUNT(&cpus) < MAX_THREADS ? CPU_COUNT(&cpus) : MAX_THREADS;
    n = n < 1 ? 1 : n;
    for (int t = 0; t < n; t++) {
        s[t] = (struct share){
            out, in,   words * (size_t)t / (size_t)n, words * (size_t)(t + 1) / (size_t)n, 0, seed,
            0,   false};
        s[t].started = t > 0 && pthread_create(&s[t].thread, NULL, do_share, &s[t]) == 0;
    }
    size_t bad = 0;
    for (int t = 0; t < n; t++) {
        if (s[t].started)
            pthread_join(s[t].thread, NULL);
        else
            do_share(&s[t]);
        bad += s[t].bad;
    }
    return bad;
}

/* This thread writes every word: where the buffer is new, its first touch places the pages on
 * this thread's NUMA node, as a program filling its own buffer would. */
void fill_host(uint32_t *h, size_t words, uint32_t seed)
{
    struct share all = {h, NULL, 0, words, 0, seed, 0, false};
    do_share(&all);
}

void fill_placed(uint32_t *h, size_t words, uint32_t seed)
{
    by_threads(h, NULL, words, seed);
}

size_t host_mismatches(const uint32_t *h, size_t words, uint32_t seed)
{
    return by_threads(NULL, h, words, seed);
}

bool device_mismatches(struct lesson *L, const uint32_t *dev, size_t words, uint32_t seed,
                       unsigned long long *bad)
{
    return checkRuntime(cudaMemsetAsync(L->dev_bad, 0, sizeof *L->dev_bad, L->stream)) &&
           checkRuntime(launch_count_mismatches(dev, words, seed, L->dev_bad, L->stream)) &&
           checkRuntime(
               cudaMemcpyAsync(bad, L->dev_bad, sizeof *bad, cudaMemcpyDeviceToHost, L->stream)) &&
           checkRuntime(cudaStreamSynchronize(L->stream));
}

cudaError_t copy_dir(void *host, void *dev, size_t bytes, enum dir d, cudaStream_t s)
{
    return d == H2D ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)
                    : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s);
}

/* The limits that bound what this process may lock and map, where they are set: a low one makes
 * cudaMallocHost, cudaHostRegister, malloc or the context itself fail. */
const char *limits_text(void)
{
    static char text[160];
    static const struct {
        int resource;
        const char *name;
    } limits[] = {{RLIMIT_MEMLOCK, "ulimit -l %s (RLIMIT_MEMLOCK)"},
                  {RLIMIT_AS, "ulimit -v %s (RLIMIT_AS)"},
                  {RLIMIT_DATA, "ulimit -d %s (RLIMIT_DATA)"}};
    size_t at = 0;
    text[0] = 0;
    for (size_t i = 0; i < sizeof limits / sizeof limits[0] && at < sizeof text; i++) {
        struct rlimit r;
        if (getrlimit(limits[i].resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
            continue;
        char value[40];
        snprintf(value, sizeof value, limits[i].name, fmt_size((size_t)r.rlim_cur));
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", at ? ", " : " under ", value);
    }
    return text;
}

cudaError_t alloc_err_;

bool alloc_failed(cudaError_t err, const char *call, size_t bytes, const char *file, int line)
{
    char text[320];
    bool device = strcmp(call, "cudaMalloc") == 0; /* GPU memory: named as before */
    snprintf(text, sizeof text, "%s of %s (%zu bytes)%s", call, fmt_size(bytes), bytes,
             device ? "" : limits_text());
    check_runtime_(err, text, file, line);
    (void)cudaGetLastError(); /* an allocation error is not sticky; clear it */
    return false;
}

bool alloc_kind(enum kind k, size_t bytes, void **p)
{
    static const char *const call[KINDS] = {"malloc (posix_memalign)", "cudaMallocHost",
                                            "cudaHostAlloc(cudaHostAllocWriteCombined)",
                                            "malloc (posix_memalign) + cudaHostRegister"};
    return ALLOC(host_alloc(k, bytes, 0, p), call[k], bytes);
}

bool free_kind(enum kind k, void *p)
{
    return checkRuntime(host_free(k, p));
}
