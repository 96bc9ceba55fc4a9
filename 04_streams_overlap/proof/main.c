/*
 * 04_streams_overlap - copies and kernels in several streams: how much they overlap, the
 * limit of that overlap, and what breaks it.
 *
 * The story, one numbered step per part of the output (IN_DEPTH.md annotates it):
 *   1. the three stages alone - host-to-device copy, kernel, device-to-host copy - and both
 *      copy directions at once, timed with events; the kernel's work per element is chosen
 *      (unless --work says otherwise) so that the kernel takes a little longer than a copy;
 *   2. the same work in sequence, its result checked against the host bit for bit;
 *   3. the work split into N chunks over N streams, issued per stream and by stage, against
 *      the ideal a pipeline can reach (the slowest stage plus one chunk of each other one);
 *   4. the timelines of those runs, from events recorded around every operation;
 *   5. what breaks the overlap: pageable host memory (its calls block the host), and one
 *      operation on the legacy default stream between the streams' work;
 *   6. what breaks the overlap: one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1, in a child
 *      process): the per-stream order serialises, the by-stage order still overlaps;
 *   7. the hardware's own record: CUPTI's timestamps against the events' picture;
 *   8. the same pipeline through the Driver API, in CU_STREAM_NON_BLOCKING streams.
 * core.c holds the idea: the pipelines every step runs, and the calls they make. This file: the
 * options, the environment, the allocation and release, and main(), the table of contents.
 * lesson.h says which file holds which step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "lesson.h"
#include "platform.h"
#include "work.h"

static void usage(FILE *to)
{
    fprintf(
        to,
        "usage: %s [options]\n"
        "Copies in, a kernel and copies out, split over several CUDA streams: how much they\n"
        "overlap, the pipeline's limit, and what breaks the overlap. Checks every claim.\n"
        "  -d, --device N     the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
        "  -n, --elements N   floats to process (default 67108864 = 256 MiB each way)\n"
        "  -s, --streams LIST stream counts to try, comma-separated (default 1,2,4,8; each 1-%d)\n"
        "  -w, --work N|auto  multiply-adds per element (default auto: the kernel takes about\n"
        "                     1.2x a copy that shares the link with the other direction)\n"
        "  -r, --reps N       timed repetitions of each run after one warm-up (default 5)\n"
        "      --csv FILE     write every operation of every run (the timelines) as CSV\n"
        "  -h, --help         this text\n"
        "environment: CUDA_LAUNCH_BLOCKING=1 and CUDA_DEVICE_MAX_CONNECTIONS=N change what the\n"
        "lesson shows; it prints them and judges what they change (IN_DEPTH.md)\n"
        "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
        "             2 bad command line, 77 no usable GPU or driver here\n",
        lesson_prog, MAX_STREAMS);
}

/* "1,2,4,8" -> counts; each from 1 to MAX_STREAMS, at most MAX_COUNTS of them. Each count
 * is parsed whole (no fixed-size buffer that could cut "0000...0640" to "0000...064"). */
static bool parse_counts(const char *text, int *counts, int *ncounts)
{
    const char *p = text;
    *ncounts = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        long v;
        if (*ncounts == MAX_COUNTS) {
            fprintf(stderr, "%s: --streams takes at most %d counts, not '%s'\n", lesson_prog,
                    MAX_COUNTS, text);
            return false;
        }
        char *token = strndup(p, len);
        if (!token) {
            fprintf(stderr, "%s: out of memory reading --streams\n", lesson_prog);
            return false;
        }
        bool good = parse_long(token, 1, MAX_STREAMS, "each --streams count", &v);
        free(token);
        if (!good)
            return false;
        counts[(*ncounts)++] = (int)v;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

/* --csv FILE: can it be written? Checked while parsing (a bad path is a bad command line, exit 2
 * before any GPU work), without creating or emptying anything. The CSV is written only at the
 * end of a run that got that far, to a temporary file in FILE's folder that then replaces FILE
 * (write_csv_file): so FILE must be a regular file or not exist yet, and its folder must be one
 * this program can write in. A device (/dev/null), a pipe, a folder, a file of the kernel's
 * (/proc, /sys) or a folder on a read-only file system is refused with the reason. *target: the
 * file to replace (a symbolic link's target, so that the link stays a link). */
static bool csv_path_ok(const char *path, char **target)
{
    const char *why = NULL;
    char buf[160];
    struct stat st, lst;
    size_t len = strlen(path);
    *target = NULL;
    if (len == 0)
        why = "an empty path names no file";
    else if (len + 32 >= PATH_MAX) {
        snprintf(buf, sizeof buf,
                 "the path is %zu characters long, more than this system's "
                 "%d less room for a temporary name",
                 len, PATH_MAX);
        why = buf;
    } else if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            why = S_ISDIR(st.st_mode) ? "it is a folder"
                                      : "it is not a regular file (a device, a "
                                        "pipe or a socket): the CSV is written "
                                        "to a file of its own that replaces it";
        else if (access(path, W_OK) != 0)
            why = strerror(errno);
        else if (!(*target = realpath(path, NULL)))
            why = strerror(errno);
    } else if (errno != ENOENT) {
        why = strerror(errno);
    } else if (lstat(path, &lst) == 0) {
        why = "it is a symbolic link to a file that does not exist";
    }
    if (!why) {
        char *copy = strdup(*target ? *target : path);
        const char *dir = copy ? dirname(copy) : NULL;
        struct statfs sf;
        struct statvfs sv;
        if (!dir)
            why = "out of memory";
        else if (statfs(dir, &sf) == 0 &&
                 (sf.f_type == 0x9fa0 /* proc */ || sf.f_type == 0x62656572 /* sysfs */ ||
                  sf.f_type == 0x1cd1 /* devpts */))
            why = "it is in one of the kernel's own file systems (/proc, /sys), not a place for "
                  "files";
        else if (statvfs(dir, &sv) == 0 && (sv.f_flag & ST_RDONLY))
            why = "its folder is on a read-only file system";
        else if (access(dir, W_OK | X_OK) != 0) {
            snprintf(buf, sizeof buf,
                     "its folder cannot be written (%s): the CSV is written "
                     "there first, then renamed",
                     strerror(errno));
            why = buf;
        }
        free(copy);
    }
    if (why) {
        fprintf(stderr, "%s: --csv: cannot write '%.200s%s': %s\n", lesson_prog, path,
                len > 200 ? "..." : "", why);
        free(*target);
        *target = NULL;
        return false;
    }
    if (!*target && !(*target = strdup(path))) {
        fprintf(stderr, "%s: out of memory reading --csv\n", lesson_prog);
        return false;
    }
    return true;
}

/* The CSV into a new file in path's folder, which then replaces path (so a run cut short leaves
 * path as it was); an existing file's permissions are kept. */
static bool write_csv_file(const char *path, const char *shown)
{
    char *copy = strdup(path), *tmp = NULL;
    const char *dir = copy ? dirname(copy) : NULL;
    int fd = -1, rows = -1;
    if (dir && asprintf(&tmp, "%s/.streams_overlap.csv.XXXXXX", dir) >= 0)
        fd = mkstemp(tmp);
    else
        tmp = NULL;
    if (fd >= 0) {
        struct stat st;
        mode_t mask = umask(0); /* mkstemp makes it 0600; a new CSV is as readable as any file */
        umask(mask);
        mode_t mode = stat(path, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask;
        FILE *f = fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
        rows = f ? write_csv(f) : -1;
        if (f ? fclose(f) != 0 : close(fd) != 0)
            rows = -1;
        if (rows >= 0 && rename(tmp, path) != 0)
            rows = -1;
        if (rows < 0)
            unlink(tmp);
    }
    free(tmp);
    free(copy);
    if (rows < 0) {
        fprintf(stderr, "%s: could not write %s\n", lesson_prog, shown);
        return false;
    }
    printf("   every operation of every run (%d rows) written to %s\n", rows, shown);
    return true;
}

/* A program started with stdout (or stderr) closed would hand that file descriptor to the
 * next file it opens, and then print its story into that file: give it /dev/null first. */
static void keep_standard_streams_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (null >= 0 && null != fd) {
                dup2(null, fd);
                close(null);
            }
        }
}

struct options {
    long device, elements, work /* 0: auto */, reps;
    long child; /* --one-queue-child N: step 6's child process (internal) */
    int counts[MAX_COUNTS], ncounts;
    const char *csv_path;
    char *csv_target; /* the file the CSV replaces (csv_path_ok) */
    bool one_line;    /* the error said it all in one line: no usage after it */
    bool elements_given;
};

/* What getopt cannot check: --one-queue-child's --work, no extra argument, --csv's file. */
static bool options_agree(int argc, char **argv, struct options *o)
{
    if (o->child && o->work == 0) {
        fprintf(stderr, "%s: --one-queue-child needs --work N\n", lesson_prog);
        return false;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        return false;
    }
    if (o->csv_path && !csv_path_ok(o->csv_path, &o->csv_target))
        return (o->one_line = true), false;
    return true;
}

/* The command line into *o; false (after the message) when it is bad. */
static bool parse_options(int argc, char **argv, struct options *o, bool *help)
{
    enum { OPT_CSV = 1000, OPT_CHILD };
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"elements", required_argument, NULL, 'n'},
        {"streams", required_argument, NULL, 's'},
        {"work", required_argument, NULL, 'w'},
        {"reps", required_argument, NULL, 'r'},
        {"csv", required_argument, NULL, OPT_CSV},
        {"help", no_argument, NULL, 'h'},
        {"one-queue-child", required_argument, NULL, OPT_CHILD},
        {NULL, 0, NULL, 0},
    };
    int opt;
    bool good = true;
    while (good && (opt = getopt_long(argc, argv, "d:n:s:w:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &o->device); break;
        case 'n':
            good = parse_long(optarg, 1024, 1L << 30, "--elements", &o->elements);
            o->elements_given = true;
            break;
        case 's': good = parse_counts(optarg, o->counts, &o->ncounts); break;
        case 'w':
            if (strcmp(optarg, "auto") == 0)
                o->work = 0;
            else
                good = parse_long(optarg, 1, 1000000, "--work (or 'auto')", &o->work);
            break;
        case 'r': good = parse_long(optarg, 1, MAX_REPS, "--reps", &o->reps); break;
        case OPT_CSV: o->csv_path = optarg; break;
        case OPT_CHILD:
            good = parse_long(optarg, 2, MAX_STREAMS, "--one-queue-child", &o->child);
            break;
        case 'h': *help = true; return true;
        default: good = false; break;
        }
    }
    return good && options_agree(argc, argv, o);
}

/* compute-sanitizer (or another CUDA tool) runs the program with its own library injected into
 * the CUDA driver and slows every call many times: the timings of such a run say nothing about
 * the GPU, so the lesson judges none (L.untimed, with the reason), and checks the rest. */
static void detect_tool(void)
{
    under_tool(L.untimed, sizeof L.untimed); /* common/platform.h: compute-sanitizer and others */
}

/* The other variables of the Programming Guide's table that a run of this lesson should say. */
static void say_other_variables(void)
{
    const char *vd = getenv("CUDA_VISIBLE_DEVICES");
    if (vd)
        printf("   CUDA_VISIBLE_DEVICES=%s: --device counts the visible GPUs only, in that order\n",
               vd);
    /* Two more of the Programming Guide's table, not judged here: printed so a run says it. */
    const char *cc = getenv("CUDA_DEVICE_MAX_COPY_CONNECTIONS"),
               *sq = getenv("CUDA_SCALE_LAUNCH_QUEUES");
    if (cc)
        printf(
            "   CUDA_DEVICE_MAX_COPY_CONNECTIONS=%s: set; this lesson's claims do not rest on it\n",
            cc);
    if (sq)
        printf("   CUDA_SCALE_LAUNCH_QUEUES=%s: a larger launch queue; every timed repetition here "
               "is\n"
               "   queued whole behind the gate either way\n",
               sq);
    if (L.untimed[0])
        printf("   %s: every timing claim is [n/j]\n", L.untimed);
}

/* The CUDA environment variables that change what this lesson shows. The driver reads them
 * when it initialises (at this program's first CUDA call); the lesson prints them, says what
 * each changes, and judges the changed behaviour instead of failing (IN_DEPTH.md, "Regimes"). */
static void read_environment(void)
{
    const char *lb = getenv("CUDA_LAUNCH_BLOCKING"), *mc = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    L.launch_blocking = lb && strcmp(lb, "1") == 0;
    L.connections = 8;
    if (mc && atoi(mc) >= 1)
        L.connections = atoi(mc) > 32 ? 32 : atoi(mc);
    printf("environment (the driver reads it when it initialises, at the first CUDA call):\n");
    if (L.launch_blocking)
        printf(
            "   CUDA_LAUNCH_BLOCKING=1: each kernel launch returns only when its kernel is done\n"
            "   (copies from pinned memory still return at once): the host issues what follows\n"
            "   a launch late, so overlap depends on the issue order (steps 3 and 4)\n");
    else
        printf(
            "   CUDA_LAUNCH_BLOCKING %s: launches and copies from pinned memory return at once\n",
            lb ? "is not 1" : "not set");
    if (mc)
        printf(
            "   CUDA_DEVICE_MAX_CONNECTIONS=%s: %d hardware work queue%s%s\n", mc, L.connections,
            L.connections == 1 ? "" : "s",
            L.connections == 1
                ? ": streams wait on each other's work in it (steps 3, 4, 6)"
                : ":\n   streams beyond that many share one, and wait on each other's work in it");
    else
        printf("   CUDA_DEVICE_MAX_CONNECTIONS not set: 8 hardware work queues (the default);\n"
               "   step 6 shows what one queue does\n");
    say_other_variables();
}

/* Host memory the kernel says is available (MemAvailable), in bytes; 0 when unknown. */
static size_t host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (size_t)kib * 1024;
}

/* Does the data fit this GPU and this host? This process holds 2 buffers of L.bytes on the
 * device and 5 on the host (pinned in and out, pageable in and out, the reference), and step 6's
 * child process as many again while it runs. The default size is halved until it fits half of
 * what is free (others may need memory meanwhile); a size given with --elements that does not
 * fit is "cannot run here" (exit 77), with the size that would. */
static bool fit_memory(const struct options *o, struct findings *f, int *rc)
{
    size_t free_b = 0, total_b = 0, host = host_available();
    if (!checkRuntime(cudaMemGetInfo(&free_b, &total_b)))
        return false;
    int procs = L.compute_mode == cudaComputeModeExclusiveProcess ? 1 : 2; /* step 6's child */
    size_t n = L.n;
    while (n > 1024 && (2 * procs * n * sizeof(float) > free_b / 2 ||
                        (host && 5 * procs * n * sizeof(float) > host / 2)))
        n /= 2;
    if (n == L.n)
        return true;
    char free_s[32], host_s[32], want_s[32];
    format_bytes(free_b, free_s, sizeof free_s);
    format_bytes(host, host_s, sizeof host_s);
    format_bytes(L.bytes, want_s, sizeof want_s);
    if (o->elements_given) {
        fprintf(stderr,
                "%s: --elements %zu needs 2 x %s of device memory and 5 x %s of host memory "
                "in each of %d process%s; %s of device memory is free and %s of host memory "
                "available: try --elements %zu\n",
                lesson_prog, L.n, want_s, want_s, procs, procs == 1 ? "" : "es", free_s,
                host ? host_s : "(unknown)", n);
        *rc = EXIT_CANNOT_RUN;
        return false;
    }
    L.n = n;
    L.bytes = n * sizeof(float);
    format_bytes(L.bytes, f->size_s, sizeof f->size_s);
    printf("   (the default 256 MiB each way does not fit: %s of device memory free, %s of host\n"
           "   memory available, for %d process%s: halved to %s each way)\n",
           free_s, host ? host_s : "(unknown)", procs, procs == 1 ? "" : "es", f->size_s);
    return true;
}

/* What the attributes decide, in a student's words, before the lesson makes a context. */
static void say_what_this_gpu_decides(void)
{
    printf("   asyncEngineCount %d, compute mode %s, pageableMemoryAccess %d (through the host's "
           "page\n"
           "   tables %d), integrated %d\n",
           L.engines,
           L.compute_mode == cudaComputeModeDefault            ? "default"
           : L.compute_mode == cudaComputeModeExclusiveProcess ? "EXCLUSIVE_PROCESS"
           : L.compute_mode == cudaComputeModeProhibited       ? "PROHIBITED"
                                                               : "other",
           L.pageable_access, L.host_page_tables, L.integrated);
    /* The smallest MIG profiles (1g) report asyncEngineCount 1, larger slices more; a GeForce card
     * under WSL2 does too, as users report it (NVIDIA's documentation does not say); an H100 or H200
     * reports 3. 0: no copy overlaps a kernel, and 1 or 0:
     * no copy in overlaps a copy out (the Programming Guide's "Overlap of Data Transfer and
     * Kernel Execution" and "Concurrent Data Transfers"). */
    if (L.engines == 1)
        printf(
            "   one asynchronous engine (asyncEngineCount 1, as on the smallest (1g) MIG slices,\n"
            "   or, as users report, a GeForce card under WSL2): copies in and out take turns, so\n"
            "   step 1 expects no gain from both at once, and the model (step 3)\n"
            "   lets them take turns; its claims are bounds here\n");
    else if (L.engines == 0)
        printf("   no asynchronous engine (asyncEngineCount 0): no copy runs beside a kernel, nor "
               "a copy\n"
               "   in beside a copy out: nothing overlaps here. Step 1 expects no gain from both "
               "copies\n"
               "   at once, the model's claims (step 3) are bounds, step 4's overlap is not "
               "judged\n");
    if (L.compute_mode == cudaComputeModeExclusiveProcess)
        printf(
            "   EXCLUSIVE_PROCESS: this GPU lets one process at a time use it, so step 6's child\n"
            "   process cannot while this one does: step 6 is not judged here\n");
    if (L.integrated || L.host_page_tables)
        printf(
            "   this GPU reads pageable memory itself: the driver need not stage pageable copies,\n"
            "   so step 5a's claims about them are not judged here\n");
}

/* The device attributes that decide what this GPU can show (lesson.h, struct lesson). */
static bool read_attributes(int dev)
{
    return checkRuntime(cudaDeviceGetAttribute(&L.engines, cudaDevAttrAsyncEngineCount, dev)) &&
           checkRuntime(cudaDeviceGetAttribute(&L.compute_mode, cudaDevAttrComputeMode, dev)) &&
           checkRuntime(
               cudaDeviceGetAttribute(&L.pageable_access, cudaDevAttrPageableMemoryAccess, dev)) &&
           checkRuntime(cudaDeviceGetAttribute(
               &L.host_page_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, dev)) &&
           checkRuntime(cudaDeviceGetAttribute(&L.integrated, cudaDevAttrIntegrated, dev));
}

/* Allocation. Pinned (page-locked) host memory is what the copy engines can read and
 * write by DMA on their own (core.c's buffers_alloc); pageable memory is for step 5. */
bool lesson_allocate(const char *size_s)
{
    struct pipeline b = {.n = L.n};
    bool ok = buffers_alloc(&b);
    L.h_in = b.host_in, L.h_out = b.host_out, L.d_in = b.dev_in, L.d_out = b.dev_out;
    ok = ok && checkRuntime(cudaMalloc((void **)&L.d_flag, sizeof(int)));
    if (!ok) {
        fprintf(stderr,
                "%s: could not allocate 2 x %s of pinned host memory and of device memory\n",
                lesson_prog, size_s);
        return false;
    }
    /* Step 6's child uses pinned memory only: it makes no pageable buffers (nor pays for them) */
    L.p_in = L.pinned_only ? NULL : malloc(L.bytes);
    L.p_out = L.pinned_only ? NULL : malloc(L.bytes);
    L.ref = calloc(L.n, sizeof(float));
    if ((!L.pinned_only && (!L.p_in || !L.p_out)) || !L.ref) {
        fprintf(stderr, "%s: out of host memory (3 x %s)\n", lesson_prog, size_s);
        return false;
    }
    for (size_t i = 0; i < L.n; i++)
        L.h_in[i] = work_input(i);
    if (!L.pinned_only) {
        memcpy(L.p_in, L.h_in, L.bytes);
        memset(L.p_out, 0, L.bytes); /* touch every page now, not during a measurement */
    }
    /* Blocking streams (cudaStreamCreate, not cudaStreamNonBlocking): they synchronise with
     * the legacy default stream, which step 5 shows. */
    if (!streams_create(L.stream, L.nstreams, BLOCKING))
        return false;
    if (!checkRuntime(cudaEventCreate(&L.start)) || !checkRuntime(cudaEventCreate(&L.stop)))
        return false;
    for (; L.events_made < L.nstreams * (OPS + 1); L.events_made++)
        if (!checkRuntime(
                cudaEventCreate(&L.ev.at[L.events_made / (OPS + 1)][L.events_made % (OPS + 1)])))
            return false;
    int device = 0;
    return checkRuntime(cudaGetDevice(&device)) && checkRuntime(preload_work()) &&
           gate_open(&L.gate, device) && checkRuntime(cudaMemset(L.d_out, 0, L.bytes));
}

/* Release whatever allocate() made, on every path; false when a release failed. */
bool lesson_release(void)
{
    bool ok = gate_close(&L.gate);
    for (int e = 0; e < L.events_made; e++)
        ok = checkRuntime(cudaEventDestroy(L.ev.at[e / (OPS + 1)][e % (OPS + 1)])) && ok;
    if (L.start)
        ok = checkRuntime(cudaEventDestroy(L.start)) && ok;
    if (L.stop)
        ok = checkRuntime(cudaEventDestroy(L.stop)) && ok;
    ok = streams_destroy(L.stream, L.nstreams, BLOCKING) && ok;
    struct pipeline b = {
        .host_in = L.h_in, .host_out = L.h_out, .dev_in = L.d_in, .dev_out = L.d_out};
    ok = buffers_free(&b) && ok;
    if (L.d_flag)
        ok = checkRuntime(cudaFree(L.d_flag)) && ok;
    free(L.p_in);
    free(L.p_out);
    free(L.ref);
    return ok;
}

/* Step 6's child process (--one-queue-child N): the same buffers, N chunks in two orders, and
 * only the lines the parent reads. */
static int child_main(const struct options *o, const struct findings *f)
{
    L.launch_blocking =
        getenv("CUDA_LAUNCH_BLOCKING") && strcmp(getenv("CUDA_LAUNCH_BLOCKING"), "1") == 0;
    L.nstreams = (int)o->child;
    L.pinned_only = true;
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)) || o->device >= count)
        return EXIT_CHECK;
    cudaError_t e = cudaSetDevice((int)o->device);
    if (e == cudaSuccess)
        e = cudaFree(NULL);                 /* the context, made now if cudaSetDevice did not */
    if (e == cudaErrorDevicesUnavailable) { /* EXCLUSIVE_PROCESS: the parent holds the GPU */
        fprintf(stderr,
                "%s: the child process could not use the GPU: %s (the GPU lets one "
                "process at a time use it)\n",
                lesson_prog, cudaGetErrorString(e));
        return EXIT_CANNOT_RUN;
    }
    if (!checkRuntime(e))
        return EXIT_CHECK;
    int rc = lesson_allocate(f->size_s) ? one_queue_child((int)o->child) : EXIT_CHECK;
    return lesson_release() && rc == EXIT_OK ? EXIT_OK : EXIT_CHECK;
}

/* The device: the header lines and the environment. *rc: the exit code when it is not usable. */
static bool open_device(const struct options *o, struct findings *f, struct cudaDeviceProp *prop,
                        int *rc)
{
    printf("04_streams_overlap: copies and kernels in several streams, overlapped\n");
    read_environment(); /* before any CUDA call: what each variable changes, said first */
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count))) {
        *rc = verdict(false); /* a failure that is not "cannot run here": exit 1 */
        return false;
    }
    if (o->device >= count) {
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, o->device, count, count - 1);
        *rc = EXIT_USAGE;
        return false;
    }
    f->prop = prop;
    f->device = o->device;
    /* The properties and attributes need no context: what this GPU decides is said before any
     * (and so can be tested on a machine without a GPU, through a driver that reports them). */
    if (!checkRuntime(cudaGetDeviceProperties(prop, (int)o->device)) ||
        !read_attributes((int)o->device)) {
        prop->name[0] = '\0';
        return true; /* main's checks fail; the verdict says so */
    }
    printf("device %ld: \"%s\", compute capability %d.%d, %d SMs\n", o->device, prop->name,
           prop->major, prop->minor, prop->multiProcessorCount);
    say_what_this_gpu_decides();
    if (!requireRuntime(cudaSetDevice((int)o->device)) || !fit_memory(o, f, rc)) {
        if (*rc == EXIT_CANNOT_RUN)
            return false;
        prop->name[0] = '\0';
        return true;
    }
    printf(
        "data: %zu floats, %s in and %s out; %ld timed repetitions after a warm-up, median shown\n",
        L.n, f->size_s, f->size_s, o->reps);
    return true;
}

int main(int argc, char **argv)
{
    keep_standard_streams_open();
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    struct options o = {.elements = 64L << 20, .reps = 5, .counts = {1, 2, 4, 8}, .ncounts = 4};
    bool help = false;
    if (!parse_options(argc, argv, &o, &help)) {
        if (!o.one_line)
            usage(stderr);
        return EXIT_USAGE;
    }
    if (help) {
        usage(stdout);
        return EXIT_OK;
    }
    struct findings f = {
        .counts = o.counts, .ncounts = o.ncounts, .maxn = 1, .auto_work = o.work == 0};
    for (int k = 0; k < o.ncounts; k++)
        f.maxn = o.counts[k] > f.maxn ? o.counts[k] : f.maxn;
    L.n = (size_t)o.elements;
    L.bytes = L.n * sizeof(float);
    L.reps = (int)o.reps;
    L.work = (int)o.work;
    L.nstreams = f.maxn > 2 ? f.maxn : 2;
    format_bytes(L.bytes, f.size_s, sizeof f.size_s);
    detect_tool();
    if (o.child)
        return child_main(&o, &f);
    struct cudaDeviceProp prop = {0};
    int rc = EXIT_CHECK;
    if (!open_device(&o, &f, &prop, &rc)) {
        free(o.csv_target);
        return rc;
    }

    bool ok = prop.name[0] && lesson_allocate(f.size_s);
    if (ok && !L.gate.off[0])
        printf(
            "timing: each timed repetition is queued whole behind a one-thread kernel that waits\n"
            "   until the host has queued it all (nvbandwidth's method): the host's own delays in\n"
            "   issuing the work stay out of the times (pageable copies excepted: step 5 a)\n");
    else if (ok)
        printf("timing: repetitions are timed as the host queues them (no gate: %s)\n", L.gate.off);
    ok = ok && step_1_stages_alone(&f);
    ok = ok && step_2_in_sequence(&f);
    ok = ok && step_3_split_over_streams(&f);
    if (ok)
        step_4_timelines(&f);
    ok = ok && step_5_what_breaks_the_overlap(&f);
    ok = ok && step_6_one_hardware_queue(&f);
    ok = ok && step_7_the_hardwares_own_record(&f);
    ok = ok && step_8_the_driver_api(&f);
    if (ok && o.csv_path) {
        printf("\n");
        ok = write_csv_file(o.csv_target, o.csv_path);
    }
    free(o.csv_target);
    ok = lesson_release() && ok;
    printf("\n");
    return verdict(ok);
}
