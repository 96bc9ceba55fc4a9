/*
 * 03_pinned_memory - page-locked (pinned) against pageable host memory, measured at the PCIe limit.
 *
 * How much does page-locked memory speed up transfers, and what does it cost? The program
 * answers with numbers, one numbered step per point (README.md annotates the output):
 *   1. the device, its PCIe link and the link's theoretical rate; the CUDA environment
 *      variables that change what the lesson shows;
 *   2. host-to-device and device-to-host bandwidth over a sweep of sizes for four kinds of host
 *      memory (pageable, pinned, pinned write-combined, pageable pinned afterwards), timed with
 *      events, median and spread of the repetitions, every copy's data verified;
 *   3. what pinning costs (allocate, first fill, register/unregister, free: the same work for
 *      every kind, several rounds) and when it pays off;
 *   4. why pageable is slower: staging through the driver's own pinned buffer; when a
 *      cudaMemcpyAsync returns (b: copies queued behind a kernel); the CPU's memcpy that feeds
 *      the staged copy; write-combined memory as the CPU sees it;
 *   5. mapped (zero-copy) memory against explicit copies, unpipelined and pipelined;
 *   6. both directions at once, in two streams;
 *   7. the same pinned memory and copies through the Driver API, and a PORTABLE buffer used
 *      from another GPU's context.
 * A table goes to stdout; --csv FILE writes the sweep for `make chart`.
 * The calls the lesson teaches are in core.c, one small function each; the steps call them.
 * Where each step lives: lesson.h lists the files (README.md has the same table).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "lesson.h"

static void usage(FILE *to)
{
    fprintf(
        to,
        "usage: %s [--device N] [--min SIZE] [--max SIZE] [--reps N] [--csv FILE] [--help]\n"
        "Measures host<->device copies from pageable, pinned, write-combined and registered\n"
        "host memory, what pinning costs, when cudaMemcpyAsync returns, zero-copy access, both\n"
        "directions at once and the same through the Driver API, and checks every claim it "
        "prints.\n"
        "  -d, --device N   the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
        "      --min SIZE   smallest copy of the sweep (default 64K; sizes double up to --max)\n"
        "      --max SIZE   largest copy of the sweep (default 256M; 1G shows the range up to\n"
        "                   1 GiB); SIZE like 4096, 64K, 256M, 1G (a multiple of 4 bytes)\n"
        "  -r, --reps N     timed repetitions per size (default 20; sizes over 50 MiB get\n"
        "                   fewer, about 1 GiB worth, but at least 5 or N)\n"
        "      --csv FILE   also write the sweep as CSV (for `make chart CSV=FILE`)\n"
        "  -h, --help       this text\n"
        "exit status: 0 all checks passed, 1 a check or CUDA call failed (or memory could not\n"
        "             be allocated), 2 bad command line, 77 no usable GPU or driver here\n",
        lesson_prog);
}

static bool parse_options(int argc, char **argv, struct options *o, int *exit_code)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"min", required_argument, NULL, 'm'},
        {"max", required_argument, NULL, 'M'},
        {"reps", required_argument, NULL, 'r'},
        {"csv", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){
        .device = 0, .min = 64 * KiB, .max = 256 * MiB, .reps = 20, .csv_path = NULL};
    *exit_code = EXIT_USAGE;
    int opt;
    bool ok = true;
    while (ok && (opt = getopt_long(argc, argv, "d:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd': ok = parse_long(optarg, 0, 1023, "--device", &o->device); break;
        case 'm':
            ok = o->min_given = parse_bytes(optarg, 4, (size_t)1 << 40, "--min", &o->min);
            break;
        case 'M':
            ok = o->max_given = parse_bytes(optarg, 4, (size_t)1 << 40, "--max", &o->max);
            break;
        case 'r': ok = parse_long(optarg, 1, 1000, "--reps", &o->reps); break;
        case 'c': o->csv_path = optarg; break;
        case 'h':
            usage(stdout);
            *exit_code = EXIT_OK;
            return false;
        default: ok = false; break;
        }
    }
    if (ok && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        ok = false;
    }
    if (ok && (o->min % 4 || o->max % 4)) {
        fprintf(stderr, "%s: --min and --max must be multiples of 4 bytes\n", lesson_prog);
        ok = false;
    }
    if (ok && o->min > o->max) {
        fprintf(stderr, "%s: --min (%s) is larger than --max (%s%s)\n", lesson_prog,
                fmt_size(o->min), fmt_size(o->max),
                o->max_given ? "" : ", the default: give --max too");
        ok = false;
    }
    if (!ok)
        usage(stderr);
    return ok;
}

/* --csv: find out now, without touching anything, that the file can be written at the end: a
 * regular file (or a symbolic link to one) that we may open for writing, or a new name in a
 * folder we may write to. No file is opened that could block (a FIFO), created or removed. */
static bool csv_refused(const char *path, const char *why)
{
    fprintf(stderr, "%s: --csv '%s': %s\n", lesson_prog, path, why);
    return false;
}

static bool csv_writable(const char *path)
{
    struct stat st;
    if (!*path)
        return csv_refused(path, "an empty file name");
    if (strlen(path) >= PATH_MAX)
        return csv_refused(path, "the name is longer than this system allows");
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
            return csv_refused(path, "a symbolic link to a file that does not exist (give the "
                                     "target's name, or remove the link)");
        if (!S_ISREG(st.st_mode))
            return csv_refused(path, S_ISDIR(st.st_mode) ? "a folder, not a file"
                                     : S_ISFIFO(st.st_mode)
                                         ? "a FIFO, not a regular file"
                                         : "not a regular file (a device, a socket?)");
        struct statfs fs;
        if (statfs(path, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC))
            return csv_refused(path, "a file of the kernel's (/proc, /sys), not one on a disk");
        int fd =
            open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); /* no O_TRUNC: unchanged */
        if (fd < 0)
            return csv_refused(path, strerror(errno));
        close(fd);
        return true;
    }
    if (errno == ENAMETOOLONG)
        return csv_refused(path, "the file name is longer than this file system allows");
    if (errno != ENOENT)
        return csv_refused(path, strerror(errno));
    /* a new file: its folder must exist and be writable, its name short enough */
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return csv_refused(path, "a folder name, not a file name");
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0)
        return csv_refused(path, "its folder does not exist");
    if (!S_ISDIR(st.st_mode))
        return csv_refused(path, "its folder is not a folder");
    if (access(dir, W_OK | X_OK) != 0)
        return csv_refused(path, "cannot create a file in its folder");
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max > 0 && strlen(base) > (size_t)name_max)
        return csv_refused(path, "the file name is longer than this file system allows");
    return true;
}

/* Written at the end: opened without truncating, checked to be a regular file, then emptied, so
 * that whatever took the name meanwhile (a device, a FIFO) is never turned into a file. */
static bool save_csv(const struct lesson *L)
{
    const char *path = L->opt.csv_path;
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    struct stat st;
    const char *why = NULL;
    FILE *csv = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "no longer a regular file";
    else if (ftruncate(fd, 0) != 0 || !(csv = fdopen(fd, "w")))
        why = strerror(errno);
    if (why) {
        fprintf(stderr, "%s: --csv: cannot write '%s': %s\n", lesson_prog, path, why);
        if (fd >= 0)
            close(fd);
        return false;
    }
    bool ok = write_csv(L, csv);
    if (fclose(csv) != 0) {
        fprintf(stderr, "%s: --csv: could not finish writing '%s'\n", lesson_prog, path);
        return false;
    }
    if (ok)
        printf("\n   the sweep went to %s (make chart CSV=%s draws it)\n", path, path);
    return ok;
}

/* MemAvailable of /proc/meminfo in bytes (0: unknown). */
static size_t host_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kib = 0;
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (size_t)kib * KiB;
}

/* The default --max (256 MiB) halved until the sweep fits a small GPU (two device buffers of
 * --max in half of its free memory) and host (five buffers in half of what is available: step 2
 * holds one of each kind at once);
 * said in step 1. A --max given on the command line is kept. */
static bool fit_sizes(struct lesson *L)
{
    size_t free_dev = 0, total_dev = 0, host = host_available(), max = L->opt.max;
    /* the first call that makes a context: where it cannot (the toolkit's stub driver, reached
     * through a shim that answered the queries before it), exit 77 with the reason */
    if (!requireRuntime(cudaSetDevice((int)L->opt.device)) ||
        !checkRuntime(cudaMemGetInfo(&free_dev, &total_dev))) {
        if (*limits_text()) /* a low address-space limit stops the context itself */
            fprintf(stderr, "%s: the context could not be made%s\n", lesson_prog, limits_text());
        return false;
    }
    if (L->opt.max_given)
        return true;
    while (max > L->opt.min && max > MIN_SIDE &&
           (2 * max > free_dev / 2 || (host && 5 * max > host / 2)))
        max /= 2;
    if (max == L->opt.max)
        return true;
    snprintf(L->sizes_cut, sizeof L->sizes_cut,
             "the sweep stops at %s, not the default %s: the "
             "GPU has %s free of %s, the host %s available (--max chooses)",
             fmt_size(max), fmt_size(L->opt.max), fmt_size(free_dev), fmt_size(total_dev),
             fmt_size(host));
    L->opt.max = max;
    return true;
}

/* The streams, events and device buffers every step uses, and the control copy's buffer. */
static bool lesson_open(struct lesson *L)
{
    size_t side = side_bytes(L, SIDE_MAX), first = L->opt.max < MIN_SIDE ? MIN_SIDE : L->opt.max;
    bool ok = checkRuntime(cudaSetDevice((int)L->opt.device)) &&
              checkRuntime(cudaStreamCreateWithFlags(&L->stream, cudaStreamNonBlocking)) &&
              checkRuntime(cudaStreamCreateWithFlags(&L->stream2, cudaStreamNonBlocking)) &&
              checkRuntime(cudaEventCreate(&L->start)) && checkRuntime(cudaEventCreate(&L->stop)) &&
              checkRuntime(cudaEventCreate(&L->stop2)) &&
              ALLOC(cudaMalloc((void **)&L->dev, first), "cudaMalloc", first) &&
              ALLOC(cudaMalloc((void **)&L->dev2, side), "cudaMalloc", side) &&
              ALLOC(cudaMalloc((void **)&L->dev_bad, sizeof *L->dev_bad), "cudaMalloc",
                    sizeof *L->dev_bad);
    if (ok && first >= PACE_BYTES) {
        ok = alloc_kind(PINNED, PACE_BYTES, &L->pace_host);
        if (ok)
            memset(L->pace_host, 0, PACE_BYTES);
    }
    return ok && checkRuntime(preload_kernels()) && gate_open(&L->gate, (int)L->opt.device);
}

static bool lesson_close(struct lesson *L)
{
    bool ok = gate_close(&L->gate);
    if (L->pace_host)
        ok = free_kind(PINNED, L->pace_host) && ok;
    if (L->dev)
        ok = checkRuntime(cudaFree(L->dev)) && ok;
    if (L->dev2)
        ok = checkRuntime(cudaFree(L->dev2)) && ok;
    if (L->dev_bad)
        ok = checkRuntime(cudaFree(L->dev_bad)) && ok;
    if (L->start)
        ok = checkRuntime(cudaEventDestroy(L->start)) && ok;
    if (L->stop)
        ok = checkRuntime(cudaEventDestroy(L->stop)) && ok;
    if (L->stop2)
        ok = checkRuntime(cudaEventDestroy(L->stop2)) && ok;
    if (L->stream)
        ok = checkRuntime(cudaStreamDestroy(L->stream)) && ok;
    if (L->stream2)
        ok = checkRuntime(cudaStreamDestroy(L->stream2)) && ok;
    return ok;
}

/* The sizes of the sweep: --min, doubling, up to --max (which is always the last). */
static void make_sizes(struct lesson *L)
{
    for (size_t s = L->opt.min;;) {
        L->sizes[L->nsizes++] = s;
        if (s >= L->opt.max)
            break;
        s = s > L->opt.max / 2 ? L->opt.max : 2 * s;
    }
}

/* The first CUDA call: the driver starts (or exit 77 says why not), and --device must exist. */
static int device_exists(const struct lesson *L)
{
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count))) {
        if (*limits_text())
            fprintf(stderr, "%s: the driver could not start%s\n", lesson_prog, limits_text());
        return verdict(false);
    }
    if (L->opt.device >= count) {
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, L->opt.device, count, count - 1);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages name the program briefly */
    static struct lesson L;        /* large (the sweep's tables): not on the stack */
    int code;
    if (!parse_options(argc, argv, &L.opt, &code))
        return code;
    if (L.opt.csv_path && !csv_writable(L.opt.csv_path))
        return EXIT_USAGE;

    printf("03_pinned_memory: how much faster are copies from page-locked (pinned) host memory?\n");
    step_1_environment(&L);
    int code_now = device_exists(&L);
    if (code_now != EXIT_OK)
        return code_now;
    /* the steps, in order; after each, the control copy is timed again (measure.c): from step 1
     * on, whose copies have woken the link from its idle speed */
    static bool (*const steps[])(struct lesson *) = {
        step_1_link,      step_2_bandwidth_sweep, step_3_pinning_cost, step_4_staging,
        step_5_zero_copy, step_6_both_ways,       step_7_driver_api,
    };
    bool ok = step_1_platform(&L) && fit_sizes(&L);
    if (ok)
        make_sizes(&L);
    ok = ok && lesson_open(&L);
    for (size_t i = 0; ok && i < sizeof steps / sizeof steps[0]; i++)
        ok = steps[i](&L) && pace_sample(&L);
    if (ok && L.opt.csv_path)
        ok = save_csv(&L);
    ok = lesson_close(&L) && ok;
    printf("\n");
    return verdict(ok);
}
