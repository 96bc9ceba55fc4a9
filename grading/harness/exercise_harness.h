/*
 * grading/harness/exercise_harness.h - what the exercises' harnesses share (NN_name/harness/NAME/, built from the
 * teacher's tree, never from a submission; common/lesson.mk says how an exercise is built).
 *
 * A harness holds main(): it calls the functions the student wrote, observes their effect
 * itself (the driver's view of contexts, memory and pointers; the calls counted through the
 * linker's --wrap) and reports what it saw as lines "KEY VALUE". It judges nothing: the test
 * (grading/judge/NN_name.bats) compares those values with what it expects, and its inputs
 * come from a seed the test chooses for each run, so that a printed sentence or a pasted figure
 * cannot pass.
 *
 * The grader's channel. The grader runs the program with its standard input on a socket whose
 * other end is the judge's (grading/judge/channel.c, a process the program cannot reach). The
 * harness moves it to a high descriptor (closed on exec) and puts /dev/null on standard input
 * before any student code runs. The judge owns the conversation: it writes "next", and the
 * harness answers with one line, the point it has reached (harness_point: "seed seed" where it
 * first makes its inputs, harness_seed_now; "fresh NAME" for a timed batch's own seed,
 * harness_fresh_seed; "at NAME", a moment the judge stamps by its own clock, harness_mark;
 * "measure NAME", where the judge reads the device memory this process holds from outside,
 * harness_measure; "pick NAME" after a call made an output, answered by the values at the
 * positions the judge picks then, harness_pick), and waits for the judge's "go [VALUE]"; last, after the last call of the
 * student's code, harness_end answers with "report LEN" and the report kept in memory (ending
 * with "end SEED"), and reads the judge's "bye". The judge knows the points in their order
 * (the grader gives them); a line it did not ask for, a point out of order or twice, or a byte
 * past a cap ends the grading of that run with no point, flagged for review
 * (grading/judge/harness.bash). The student's file cannot reach the descriptor by name:
 * grading/check/check-object refuses it when it calls write, dup, fdopen, open, read, syscall, dlsym or
 * exit, uses stdin, or has a constructor or destructor; what it could still reach by other
 * routes breaks the conversation's order, which the judge sees.
 * Run by hand (`prog SEED`, no channel), the report is printed on stdout as "harness: KEY VALUE"
 * lines instead, and the grader never reads stdout. One translation unit of a harness reports
 * (the state below is per unit).
 */
#ifndef LESSON_EXERCISE_HARNESS_H
#define LESSON_EXERCISE_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "minstd.h"
#include "pick.h"
#include "syscall_filter.h"

/* The values of one case: MINSTD (Park-Miller) from the case's seed, each x % 1000, so that
 * every result the exercises compute from them (2x, 3x + 1, x / 2, ...) is exact in float and
 * the test can compute the same sums with awk (grading/judge/harness.bash, expected_sum). */
static inline uint32_t harness_case_seed(uint32_t seed, int k)
{
    return (uint32_t)(((uint64_t)seed + (uint64_t)k * 7919u) % 2147483646u) + 1u;
}

static inline void harness_fill(float *v, size_t n, uint32_t seed, int k)
{
    struct minstd m;
    minstd_start(&m, harness_case_seed(seed, k));
    minstd_floats(&m, v, n);
}

/* The sum of v[0..n). Every value the harnesses sum is a whole number or a multiple of 2^-15,
 * and their sums stay far inside a double's 53 bits, so the sum is exact in any order: four
 * sums side by side, which the CPU adds at once (one sum waits for its last add each time:
 * 0.9 s for 2^30 values, lesson 04's largest input). */
static inline double harness_sum(const float *v, size_t n)
{
    double s[4] = {0, 0, 0, 0};
    size_t whole = n - n % 4;
    for (size_t i = 0; i < whole; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += v[i + k];
    for (size_t i = whole; i < n; i++)
        s[0] += v[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Case k of the seed to device buffer d and back through the current context (v: n floats,
 * poisoned between the two copies, so that what comes back is what the device held). */
static inline bool harness_round_trip(CUdeviceptr d, float *v, size_t n, uint32_t seed, int k)
{
    harness_fill(v, n, seed, k);
    bool done = cuMemcpyHtoD(d, v, n * sizeof(float)) == CUDA_SUCCESS;
    for (size_t i = 0; i < n; i++)
        v[i] = -1;
    return done && cuMemcpyDtoH(v, d, n * sizeof(float)) == CUDA_SUCCESS;
}

/* The report's state: fd -1 (no channel: lines go to stdout as they come), else the
 * grader's descriptor and the report kept until harness_end(). */
struct harness_channel {
    int fd;
    uint32_t seed; /* 0: not asked yet */
    bool overflow;
    size_t len;
    char text[1 << 16];
};
static inline struct harness_channel *harness_channel(void)
{
    static struct harness_channel chan = {.fd = -1};
    return &chan;
}

/* One line of the report: "KEY VALUE" (kept for the grader's channel, or printed on stdout as
 * "harness: KEY VALUE" when run by hand). */
static inline void harness_report(const char *key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void harness_report(const char *key, const char *fmt, ...)
{
    struct harness_channel *c = harness_channel();
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int head = snprintf(line, sizeof line, "%s ", key);
    int body = head < 0 ? -1 : vsnprintf(line + head, sizeof line - (size_t)head, fmt, ap);
    va_end(ap);
    if (head < 0 || body < 0 || (size_t)head + (size_t)body + 1 >= sizeof line) {
        snprintf(line, sizeof line, "%s (a value too long for the report)", key);
    }
    if (c->fd == -2) /* the report was written: nothing more goes there */
        return;
    if (c->fd < 0) {
        printf("harness: %s\n", line);
        fflush(stdout);
        return;
    }
    size_t n = strlen(line);
    if (c->len + n + 2 > sizeof c->text) {
        c->overflow = true;
        return;
    }
    memcpy(c->text + c->len, line, n);
    c->text[c->len + n] = '\n';
    c->len += n + 1;
}

/* A result: "KEY N SUM" (the sum of v's n values) where ok, else "KEY " and the word the
 * exercise's grader expects for one that gave nothing ("failed", "none"). */
static inline void harness_result(const char *key, bool ok, const float *v, size_t n,
                                  const char *failed)
{
    if (ok)
        harness_report(key, "%zu %.1f", n, harness_sum(v, n));
    else
        harness_report(key, "%s", failed);
}

/* The same for case k of the seed, under the key "caseK". */
static inline void harness_case(int k, bool ok, const float *v, size_t n, const char *failed)
{
    char key[16];
    snprintf(key, sizeof key, "case%d", k);
    harness_result(key, ok, v, n, failed);
}

/* Writes all of text on the grader's channel; false when it could not. */
static inline bool harness_channel_write(const char *text, size_t len)
{
    int fd = harness_channel()->fd;
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += (size_t)n;
    }
    return fd >= 0;
}

/* The grader's channel on standard input (see the top): a socket whose other end is the
 * grader's. Moves it to a high descriptor (closed on exec) and gives standard input /dev/null;
 * the seed is not asked yet (harness_seed_now). False: no channel (a run by hand). */
static inline bool harness_channel_open(void)
{
    int type = 0;
    socklen_t size = sizeof type;
    if (harness_channel()->fd >= 0)
        return true;
    if (getsockopt(0, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM)
        return false;
    int fd = fcntl(0, F_DUPFD, 512);
    if (fd < 0)
        fd = fcntl(0, F_DUPFD, 3);
    if (fd >= 0)
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    int null = open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0 || dup2(null, 0) != 0) {
        fprintf(stderr, "%s: could not set up the grader's channel: %s\n", lesson_prog,
                strerror(errno));
        exit(EXIT_CHECK);
    }
    close(null);
    clearerr(stdin);
    harness_channel()->fd = fd;
    return true;
}

/* One line of the grader's into text (cap bytes, the newline dropped, cut at cap - 1; empty
 * when the channel ends first). */
static inline void harness_channel_answer(char *text, size_t cap)
{
    size_t len = 0;
    while (len < cap - 1) {
        ssize_t n = read(harness_channel()->fd, text + len, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || text[len] == '\n')
            break;
        len++;
    }
    text[len] = '\0';
}

/* The conversation is out of step (the grader said `said` where the harness waited for its
 * "next", "go" or "bye": a line someone else wrote, or read, on the channel): the harness says
 * so on the channel, which the judge takes as a line it did not ask for, and says no more. */
static inline void harness_channel_broke(const char *kind, const char *name, const char *said)
{
    fprintf(stderr, "%s: the grader's channel is out of step at '%s %s' (it said '%.40s')\n",
            lesson_prog, kind, name, said);
    (void)harness_channel_write("desync\n", 7);
    close(harness_channel()->fd);
    harness_channel()->fd = -2; /* nothing more goes there */
}

/* The grader asks, this answers (grading/judge/channel.c): waits for the grader's "next",
 * then says "KIND NAME" (a point of the grader's list, in its order) and reads its answer,
 * "go" or "go VALUE" (VALUE, or "" for "go", into value). False, with the reason on stderr:
 * no channel, or the grader did not ask or answer as it does (the run then has no report). */
static inline bool harness_point(const char *kind, const char *name, char *value, size_t cap)
{
    char text[64], line[96];
    if (harness_channel()->fd < 0)
        return false;
    harness_channel_answer(text, sizeof text);
    int n = snprintf(line, sizeof line, "%s %s\n", kind, name);
    if (strcmp(text, "next") == 0 && n > 0 && (size_t)n < sizeof line &&
        harness_channel_write(line, (size_t)n)) {
        harness_channel_answer(text, sizeof text);
        if (strncmp(text, "go", 2) == 0 && (text[2] == '\0' || text[2] == ' ')) {
            const char *v = text[2] ? text + 3 : "";
            size_t len = strlen(v);
            len = len < cap - 1 ? len : cap - 1;
            memcpy(value, v, len);
            value[len] = '\0';
            return true;
        }
    }
    harness_channel_broke(kind, name, text);
    return false;
}

/* A seed value from the grader's answer (1 .. 2^31 - 2); exits 2 when it is none. */
static inline uint32_t harness_seed_value(const char *text)
{
    long seed = 0;
    if (!parse_long(text, 1, 2147483646L, "the grader's SEED", &seed))
        exit(EXIT_USAGE);
    return (uint32_t)seed;
}

/* The seed, asked of the grader the first time (a run by hand: the one harness_start read from
 * the command line). Call it where the inputs are first made: before that, nothing in this
 * process holds it. 0: no seed (no channel and none given). */
static inline uint32_t harness_seed_now(void)
{
    struct harness_channel *c = harness_channel();
    char text[32] = {0};
    if (c->seed || c->fd == -1)
        return c->seed;
    (void)harness_point("seed", "seed", text, sizeof text);
    c->seed = harness_seed_value(text);
    return c->seed;
}

/* A seed the grader draws for what comes next ("fresh NAME": a timed batch's inputs, so that
 * nothing computed before can be replayed); by hand, one made from the run's seed and NAME. */
static inline uint32_t harness_fresh_seed(const char *name)
{
    char text[32] = {0};
    if (harness_channel()->fd >= 0) {
        (void)harness_point("fresh", name, text, sizeof text);
        return harness_seed_value(text);
    }
    uint32_t h = 2166136261u ^ harness_channel()->seed;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return h % 2147483646u + 1u;
}

/* A moment the grader stamps by its own clock ("at NAME"; NAME of a-z, 0-9 and _), where there
 * is a grader's channel; nothing by hand. */
static inline void harness_mark(const char *name)
{
    char text[8];
    (void)harness_point("at", name, text, sizeof text);
}

/* The device memory this process holds, read by the grader from outside ("measure NAME":
 * NVML's list of compute processes, read while this waits for the grader's "go", so the figure
 * is the one of this moment); nothing by hand. */
static inline void harness_measure(const char *name)
{
    char text[8];
    (void)harness_point("measure", name, text, sizeof text);
}

/* After a call of the student's whose output is out[0..n) (n > 0): "pick NAME", and the judge
 * answers with a seed it draws now, after the call; the harness answers at once with the
 * values at the PICK_COUNT positions that seed gives over the whole output (pick_positions,
 * into at; the last is n - 1): "picked NAME N AT:BITS ...", BITS the float's 8 hex digits. The
 * judge keeps them and computes the values due itself (grading/judge/channel.c,
 * expected_picks.c). By hand, a seed made from the run's seed and NAME, and nothing is sent.
 * False: the judge did not answer as it does (the conversation is broken). */
static inline bool harness_pick(const char *name, const float *out, size_t n,
                                uint64_t at[PICK_COUNT])
{
    char text[32] = {0}, line[PICK_COUNT * 32 + 96];
    uint32_t s;
    if (harness_channel()->fd >= 0) {
        if (!harness_point("pick", name, text, sizeof text))
            return false;
        s = harness_seed_value(text);
    } else {
        s = harness_fresh_seed(name) ^ 0x2545f491u;
    }
    pick_positions(s, n, at);
    int len = snprintf(line, sizeof line, "picked %.60s %zu", name, n);
    for (int k = 0; k < PICK_COUNT && len > 0; k++) {
        uint32_t bits;
        memcpy(&bits, &out[at[k]], sizeof bits);
        len += snprintf(line + len, sizeof line - (size_t)len, " %llu:%08x",
                        (unsigned long long)at[k], bits);
    }
    if (harness_channel()->fd < 0)
        return true;
    line[len++] = '\n';
    return harness_channel_write(line, (size_t)len);
}

/* The grader's channel (then the command line must be empty), else the seed from the command
 * line (one number, 1 .. 2^31 - 2, a run by hand); a bad command line exits 2, --help (or -h)
 * prints the usage and exits 0. */
static inline void harness_start(int argc, char **argv, const char *what)
{
    long seed = 0;
    bool help = argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
    if (!help && harness_channel_open() && argc == 1)
        return;
    if (help || argc != 2 || harness_channel()->fd >= 0 ||
        !parse_long(argv[1], 1, 2147483646L, "SEED", &seed)) {
        fprintf(help ? stdout : stderr,
                "usage: %s SEED\n%s\nThe inputs come from SEED, and the report is printed as "
                "lines \"harness: KEY VALUE\". The grader (grading/judge) gives the seed on "
                "its own channel instead, when the program first needs it, and judges the "
                "report it reads back there.\n",
                lesson_prog, what);
        exit(help ? EXIT_OK : EXIT_USAGE);
    }
    harness_channel()->seed = (uint32_t)seed;
}

/* harness_start, then the seed at once: for a harness whose inputs come before the first call
 * of the student's code. */
static inline uint32_t harness_seed(int argc, char **argv, const char *what)
{
    harness_start(argc, argv, what);
    return harness_seed_now();
}

/* The last lines: "filter on|off" (whether grading/harness/syscall_filter.c's system-call filter ran
 * this process: installed before main() in every program built from a student's file; a
 * graded run without it does not count, grading/judge/harness.bash) and "end SEED" when ok;
 * on the grader's channel, the whole report is written now, once (call it after the last call
 * of the student's code). */
static inline int harness_end(uint32_t seed, bool ok)
{
    struct harness_channel *c = harness_channel();
    harness_report("filter", "%s", syscall_filter_installed() ? "on" : "off");
    if (ok)
        harness_report("end", "%u", seed);
    if (c->fd >= 0) {
        if (c->overflow) {
            static const char full[] = "overflow the report was too long\n";
            memcpy(c->text, full, sizeof full - 1);
            c->len = sizeof full - 1;
        }
        char head[32], text[8];
        int n = snprintf(head, sizeof head, "report %zu\n", c->len);
        harness_channel_answer(text, sizeof text); /* the grader's "next" */
        if (strcmp(text, "next") != 0) {
            harness_channel_broke("report", "", text);
            return ok ? EXIT_OK : EXIT_CHECK;
        }
        if (harness_channel_write(head, (size_t)n) && harness_channel_write(c->text, c->len)) {
            harness_channel_answer(text, sizeof text); /* "bye" */
            if (strcmp(text, "bye") != 0) {
                harness_channel_broke("report", "", text);
                return ok ? EXIT_OK : EXIT_CHECK;
            }
        }
        close(c->fd);
        c->fd = -2; /* written: nothing more goes there */
    }
    return ok ? EXIT_OK : EXIT_CHECK;
}

/* How many references to device dev's primary context are left beyond the runtime's own
 * one: the harness gives back references until the driver says the context is inactive.
 * -1: the runtime's own reference was already gone (someone released one too many). Call
 * it last: the runtime's context is gone afterwards. */
static inline int harness_primary_refs_beyond_runtime(CUdevice dev)
{
    unsigned int flags = 0;
    int active = 0;
    if (cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS || !active)
        return -1;
    for (int extra = 0; extra < 16; extra++) {
        if (cuDevicePrimaryCtxRelease(dev) != CUDA_SUCCESS)
            return -1;
        if (cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS)
            return -1;
        if (!active)
            return extra;
    }
    return 16;
}

/* Case k of a kernel exercise: n floats made from the seed go to *dy (allocated here, freed
 * and zeroed after), kernel f runs over them in one-dimensional blocks of 256 with params
 * (which point at *dy), and the result comes back: "caseK N SUM", or "caseK failed" (f NULL
 * included: the student's lookup failed). */
static inline void harness_kernel_case(CUfunction f, void **params, CUdeviceptr *dy, size_t n,
                                       uint32_t seed, int k)
{
    float *y = malloc(n * sizeof(float));
    bool ok = f && y && cuMemAlloc(dy, n * sizeof(float)) == CUDA_SUCCESS;
    if (ok) {
        harness_fill(y, n, seed, k);
        ok = cuMemcpyHtoD(*dy, y, n * sizeof(float)) == CUDA_SUCCESS &&
             checkDriver(cuLaunchKernel(f, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, 0, NULL,
                                        params, NULL)) &&
             checkDriver(cuCtxSynchronize()) &&
             cuMemcpyDtoH(y, *dy, n * sizeof(float)) == CUDA_SUCCESS;
    }
    harness_case(k, ok, y, n, "failed");
    if (*dy)
        (void)cuMemFree(*dy);
    *dy = 0;
    free(y);
}

/* Device allocations followed from the student's cuMemAlloc (a harness linked with
 * --wrap=cuMemAlloc_v2 --wrap=cuMemFree_v2: harness/NAME/wrap). The macro defines the wrappers,
 * harness_device_allocs (set .counting while the student's code runs) and
 * harness_device_allocs_alive(): how many of those allocations the driver still knows (freed by
 * cuMemFree, cudaFree or their context's end, they are gone; kept in a static, they are not).
 * Call it right after the student's last call, before the harness allocates again. */
#define HARNESS_FOLLOW_DEVICE_ALLOCATIONS()                                             \
    static struct {                                                                     \
        int counting, count;                                                            \
        CUdeviceptr p[64];                                                              \
    } harness_device_allocs;                                                            \
    CUresult __real_cuMemAlloc_v2(CUdeviceptr *p, size_t bytes);                        \
    CUresult __wrap_cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)                         \
    {                                                                                   \
        CUresult r = __real_cuMemAlloc_v2(p, bytes);                                    \
        if (r == CUDA_SUCCESS && harness_device_allocs.counting &&                      \
            harness_device_allocs.count < 64)                                           \
            harness_device_allocs.p[harness_device_allocs.count++] = *p;                \
        return r;                                                                       \
    }                                                                                   \
    CUresult __real_cuMemFree_v2(CUdeviceptr p);                                        \
    CUresult __wrap_cuMemFree_v2(CUdeviceptr p)                                         \
    {                                                                                   \
        CUresult r = __real_cuMemFree_v2(p);                                            \
        for (int i = 0; r == CUDA_SUCCESS && i < harness_device_allocs.count; i++)      \
            if (harness_device_allocs.p[i] == p) {                                      \
                harness_device_allocs.p[i] =                                            \
                    harness_device_allocs.p[--harness_device_allocs.count];             \
                break;                                                                  \
            }                                                                           \
        return r;                                                                       \
    }                                                                                   \
    static int harness_device_allocs_alive(void)                                        \
    {                                                                                   \
        int alive = 0;                                                                  \
        for (int i = 0; i < harness_device_allocs.count; i++) {                         \
            CUcontext owner = NULL;                                                     \
            alive += cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,        \
                                           harness_device_allocs.p[i]) == CUDA_SUCCESS; \
        }                                                                               \
        return alive;                                                                   \
    }

/* This thread's context stack into seen[0..16), top first (popped and pushed back): its depth. */
static inline int harness_stack_read(CUcontext seen[16])
{
    int depth = 0;
    while (depth < 16) {
        CUcontext c = NULL;
        if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c ||
            cuCtxPopCurrent(&seen[depth]) != CUDA_SUCCESS)
            break;
        depth++;
    }
    for (int i = depth - 1; i >= 0; i--)
        (void)cuCtxPushCurrent(seen[i]);
    return depth;
}

/* The depth of this thread's context stack and its top (popped and pushed back). */
static inline int harness_stack_depth(CUcontext *top)
{
    CUcontext seen[16];
    int depth = harness_stack_read(seen);
    *top = depth ? seen[0] : NULL;
    return depth;
}

/* What a call of the student's must leave as it found it (or exactly as its contract says it
 * changes it): this thread's context stack (depth, and each context in order, top first), the
 * state of every device's primary context (active, flags) and the runtime's current device.
 * harness_state_take snapshots it; harness_state_check takes it again and reports
 * "state_NAME kept" (what the call must leave) or "state_NAME changed: WHAT". Take it on the
 * thread the call ran on, between the student's calls only (the stack is popped and pushed
 * back, through the harness's own --wrap where it has one). */
enum { HARNESS_STATE_DEPTH = 16, HARNESS_STATE_DEVICES = 16 };
struct harness_state {
    int depth;
    CUcontext stack[HARNESS_STATE_DEPTH]; /* [0] is the current context */
    int devices;                          /* -1: the driver could not count them */
    int active[HARNESS_STATE_DEVICES];    /* -1: the state could not be read */
    unsigned int flags[HARNESS_STATE_DEVICES];
    int device; /* cudaGetDevice; -1 when it failed */
};

static inline void harness_state_take(struct harness_state *s)
{
    memset(s, 0, sizeof *s);
    /* the runtime's device first: whatever the runtime sets up on its first call is there
     * before the rest is read, in every snapshot */
    if (cudaGetDevice(&s->device) != cudaSuccess) {
        s->device = -1;
        (void)cudaGetLastError();
    }
    s->depth = harness_stack_read(s->stack);
    if (cuDeviceGetCount(&s->devices) != CUDA_SUCCESS)
        s->devices = -1;
    for (int i = 0; i < s->devices && i < HARNESS_STATE_DEVICES; i++) {
        CUdevice dev;
        if (cuDeviceGet(&dev, i) != CUDA_SUCCESS ||
            cuDevicePrimaryCtxGetState(dev, &s->flags[i], &s->active[i]) != CUDA_SUCCESS)
            s->active[i] = -1;
    }
}

/* The same, as a value: struct harness_state before = harness_state_now(); */
static inline struct harness_state harness_state_now(void)
{
    struct harness_state s;
    harness_state_take(&s);
    return s;
}

/* The snapshot want as the call's contract leaves it: ctx pushed on it (a call that must make
 * ctx current on top of what was there), or ctx in place of its top (one that must make ctx
 * the current context, whatever was current). */
static inline void harness_state_push(struct harness_state *want, CUcontext ctx)
{
    if (want->depth >= HARNESS_STATE_DEPTH)
        return;
    memmove(want->stack + 1, want->stack, (size_t)want->depth * sizeof want->stack[0]);
    want->stack[0] = ctx;
    want->depth++;
}
static inline void harness_state_set_top(struct harness_state *want, CUcontext ctx)
{
    if (want->depth == 0)
        want->depth = 1;
    want->stack[0] = ctx;
}

/* What differs between the snapshots want and got, in words, into what (empty: nothing). */
static inline void harness_state_differs(const struct harness_state *want,
                                         const struct harness_state *got, char *what, size_t cap)
{
    size_t len = 0;
    what[0] = '\0';
#define HARNESS_STATE_SAY(...)                                               \
    do {                                                                     \
        if (len < cap) {                                                     \
            int n_ = snprintf(what + len, cap - len, "%s", len ? "; " : ""); \
            len += n_ > 0 ? (size_t)n_ : 0;                                  \
        }                                                                    \
        if (len < cap) {                                                     \
            int n_ = snprintf(what + len, cap - len, __VA_ARGS__);           \
            len += n_ > 0 ? (size_t)n_ : 0;                                  \
        }                                                                    \
    } while (0)
    if (want->depth != got->depth)
        HARNESS_STATE_SAY("the context stack %d deep, %d due", got->depth, want->depth);
    else
        for (int i = 0; i < want->depth; i++)
            if (want->stack[i] != got->stack[i]) {
                if (i)
                    HARNESS_STATE_SAY("the context %d below the current one is another", i);
                else
                    HARNESS_STATE_SAY("the current context is another");
                break;
            }
    if (want->devices != got->devices)
        HARNESS_STATE_SAY("%d devices seen, was %d", got->devices, want->devices);
    for (int i = 0; i < want->devices && i < got->devices && i < HARNESS_STATE_DEVICES; i++) {
        if (want->active[i] != got->active[i])
            HARNESS_STATE_SAY("device %d's primary context %s, was %s", i,
                              got->active[i] > 0 ? "active" : "inactive",
                              want->active[i] > 0 ? "active" : "inactive");
        else if (want->flags[i] != got->flags[i])
            HARNESS_STATE_SAY("device %d's primary context flags 0x%x, was 0x%x", i, got->flags[i],
                              want->flags[i]);
    }
    if (want->device != got->device)
        HARNESS_STATE_SAY("current device %d, was %d", got->device, want->device);
#undef HARNESS_STATE_SAY
}

/* "state_NAME kept" when the state now is want, else "state_NAME changed: WHAT". True: kept. */
static inline bool harness_state_check(const char *name, const struct harness_state *want)
{
    struct harness_state got;
    char key[64], what[512];
    harness_state_take(&got);
    harness_state_differs(want, &got, what, sizeof what);
    snprintf(key, sizeof key, "state_%s", name);
    if (what[0])
        harness_report(key, "changed: %s", what);
    else
        harness_report(key, "kept");
    return what[0] == '\0';
}

/* The harness's own context ctx (made with cuCtxCreate to stand for the caller's) done with:
 * popped where it is current, and destroyed unless a call of the student's left it below
 * another context on this thread's stack (then it is kept: destroying it there would leave the
 * stack holding a context that no longer exists). */
static inline void harness_own_context_end(CUcontext ctx)
{
    CUcontext seen[16];
    int depth = harness_stack_read(seen);
    if (depth && seen[0] == ctx) {
        (void)cuCtxPopCurrent(NULL);
        (void)cuCtxDestroy(ctx);
        return;
    }
    for (int i = 0; i < depth; i++)
        if (seen[i] == ctx)
            return;
    (void)cuCtxDestroy(ctx);
}

/* bytes of zeroed memory that end where a page that cannot be touched (PROT_NONE) begins, so
 * that a read or a write past the end stops the program (its run fails) instead of reaching a
 * neighbour. Kept until the program ends. NULL: no such mapping could be made. */
static inline void *harness_guarded(size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return NULL;
    size_t pages = (bytes + (size_t)page - 1) / (size_t)page + 1, size = pages * (size_t)page;
#ifdef MAP_ANONYMOUS
    char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#else
    int zero = open("/dev/zero", O_RDWR);
    char *base =
        zero < 0 ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, zero, 0);
    if (zero >= 0)
        close(zero);
#endif
    if (base == MAP_FAILED)
        return NULL;
    if (mprotect(base + size - (size_t)page, (size_t)page, PROT_NONE) != 0) {
        (void)munmap(base, size);
        return NULL;
    }
    return base + size - (size_t)page - bytes;
}

#endif
