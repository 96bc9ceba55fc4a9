/* common/check.c - see check.h for what each part is for. */
#define _GNU_SOURCE
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ---- reports ------------------------------------------------------------------------ */

static const char *or_default(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static void report(const char *file, int line, const char *call, const char *name, int number,
                   const char *message)
{
    fflush(stdout); /* keep stdout's story and the error in order on a terminal */
    fprintf(stderr, "%s:%d: %s failed: %s (%d): %s\n", file, line, call,
            or_default(name, "(no name)"), number, or_default(message, "(no message)"));
}

/* ---- process limits: what the lessons need at least, and the hint when one is below ---- */

static const struct {
    int resource;
    const char *what;
    char flag;      /* ulimit's option */
    rlim_t minimum; /* RLIM_INFINITY: none but unlimited will do */
    rlim_t unit;    /* ulimit's unit: 1 (a count) or 1024 (KiB) */
} limits[] = {
    {RLIMIT_NOFILE, "open files", 'n', 1024, 1},
    {RLIMIT_NPROC, "processes and threads of this user", 'u', 1024, 1},
    {RLIMIT_MEMLOCK, "locked memory", 'l', 64 * 1024, 1024},
    {RLIMIT_AS, "address space", 'v', RLIM_INFINITY, 1024},
};
enum { LIM_NOFILE, LIM_NPROC, LIM_MEMLOCK, LIM_AS };

/* Limit i's line when its soft value is below the minimum; false otherwise. */
static bool limit_hint(int i)
{
    struct rlimit r;
    if (i == LIM_NPROC && geteuid() == 0) /* root is not held to it */
        return false;
    if (getrlimit(limits[i].resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY ||
        (limits[i].minimum != RLIM_INFINITY && r.rlim_cur >= limits[i].minimum))
        return false;
    bool none = limits[i].minimum == RLIM_INFINITY;
    char need[64];
    snprintf(need, sizeof need, "%llu", (unsigned long long)(limits[i].minimum / limits[i].unit));
    fprintf(stderr,
            "%s: likely cause: this process's limit of %s is %llu%s (ulimit -%c); the lessons "
            "need %s%s%s: raise it (ulimit -%c %s) or ask the administrator\n",
            lesson_prog, limits[i].what, (unsigned long long)(r.rlim_cur / limits[i].unit),
            limits[i].unit > 1 ? " KiB" : "", limits[i].flag, none ? "no limit" : "at least ",
            none ? "" : need, limits[i].unit > 1 && !none ? " KiB" : "", limits[i].flag,
            none ? "unlimited" : need);
    return true;
}

bool process_limit_hint(int err)
{
    switch (err) {
    case EMFILE:
    case ENFILE: return limit_hint(LIM_NOFILE);
    case EAGAIN: return limit_hint(LIM_NPROC);
    case ENOMEM: return limit_hint(LIM_AS);
    default: return false;
    }
}

/* After a failed CUDA call: the limit that likely caused an operating-system error or memory
 * that could not be had, if one is low (the first that is, for the operating system). */
static void cuda_limit_hint(bool os_error, bool out_of_memory, const char *call)
{
    if (os_error)
        (void)(limit_hint(LIM_NOFILE) || limit_hint(LIM_NPROC) || limit_hint(LIM_AS));
    if (!out_of_memory)
        return;
    bool host = strstr(call, "MallocHost") || strstr(call, "HostAlloc") ||
                strstr(call, "HostRegister") || strstr(call, "MemAllocHost");
    (void)((host && limit_hint(LIM_MEMLOCK)) || limit_hint(LIM_AS));
}

bool check_runtime_(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return true;
    report(file, line, call, cudaGetErrorName(err), (int)err, cudaGetErrorString(err));
    cuda_limit_hint(err == cudaErrorOperatingSystem, err == cudaErrorMemoryAllocation, call);
    return false;
}

static void cannot_run(const char *why, const char *what_to_do)
{
    fflush(stdout);
    fprintf(stderr, "%s: cannot run here: %s\n%s: %s\n", lesson_prog, why, lesson_prog, what_to_do);
    exit(EXIT_CANNOT_RUN);
}

static const char *visible_devices(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    return !v ? "not set" : *v ? v : "set empty";
}

/* Shared by the two APIs once the error is sorted into one of these kinds. */
enum unavailable { AVAILABLE, NO_LIBRARY, STUB, OLD_DRIVER, NO_DEVICE, BUSY };

static void explain(enum unavailable kind)
{
    static char buf[512];
    switch (kind) {
    case NO_LIBRARY:
        cannot_run("no NVIDIA driver: libcuda.so.1 could not be loaded.",
                   "install the NVIDIA driver for your GPU (it provides libcuda.so.1), or run "
                   "on a machine that has one.");
        break;
    case STUB:
        cannot_run("libcuda.so.1 is the CUDA toolkit's stub library (lib64/stubs), which only "
                   "lets programs link; it cannot talk to a GPU.",
                   "remove the stubs directory from LD_LIBRARY_PATH / ld.so.conf so that the "
                   "real driver's libcuda.so.1 is found.");
        break;
    case OLD_DRIVER: {
        int runtime = 0;
        cudaRuntimeGetVersion(&runtime);
        snprintf(buf, sizeof buf,
                 "update the NVIDIA driver to one that supports CUDA %d.%d or later "
                 "(see `nvidia-smi`), or build with an older CUDA toolkit.",
                 runtime / 1000, runtime % 1000 / 10);
        cannot_run("the installed NVIDIA driver is older than this program's CUDA runtime.", buf);
        break;
    }
    case NO_DEVICE:
        snprintf(buf, sizeof buf,
                 "check `nvidia-smi`; CUDA_VISIBLE_DEVICES is %s (set empty, it hides every "
                 "GPU; unset, all are visible).",
                 visible_devices());
        cannot_run("the driver is installed but no CUDA device is visible.", buf);
        break;
    case BUSY:
        cannot_run("the GPU is busy or unavailable (exclusive compute mode or in use).",
                   "wait for the other process to finish, or choose another --device.");
        break;
    case AVAILABLE: break;
    }
}

bool require_runtime_(cudaError_t err, const char *call, const char *file, int line)
{
    enum unavailable kind = AVAILABLE;
    switch (err) {
    case cudaErrorInsufficientDriver:
        /* The runtime says this both for "no libcuda.so.1" and for "driver too old". */
        kind = driver_library_found() ? OLD_DRIVER : NO_LIBRARY;
        break;
    case cudaErrorStubLibrary: kind = STUB; break;
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice: kind = OLD_DRIVER; break;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice: kind = NO_DEVICE; break;
    case cudaErrorDevicesUnavailable: kind = BUSY; break;
    default: break;
    }
    if (kind != AVAILABLE) {
        /* One clear message: without the library "insufficient driver" would read as "upgrade
         * the driver"; the stub's error says no more than the explanation. */
        if (kind != NO_LIBRARY && kind != STUB) {
            check_runtime_(err, call, file, line);
            /* a low limit of open files can read as no device or a busy one */
            cuda_limit_hint(true, false, call);
        }
        explain(kind);
    }
    return check_runtime_(err, call, file, line);
}

bool check_driver_(CUresult err, const char *call, const char *file, int line)
{
    if (err == CUDA_SUCCESS)
        return true;
    /* the toolkit's stub answers every call so (a forwarding test driver in front of it may
     * answer the first ones): whenever it is met, CUDA cannot run here, exit 77 with why */
    if (err == CUDA_ERROR_STUB_LIBRARY)
        explain(STUB);
    const char *name = NULL, *message = NULL;
    /* The stub driver returns CUDA_ERROR_STUB_LIBRARY here and leaves both NULL. */
    (void)cuGetErrorName(err, &name);
    (void)cuGetErrorString(err, &message);
    report(file, line, call, name, (int)err, message);
    cuda_limit_hint(err == CUDA_ERROR_OPERATING_SYSTEM, err == CUDA_ERROR_OUT_OF_MEMORY, call);
    return false;
}

bool require_driver_(CUresult err, const char *call, const char *file, int line)
{
    enum unavailable kind = AVAILABLE;
    switch (err) {
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
        if (!driver_library_found())
            kind = NO_LIBRARY;
        break;
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: kind = OLD_DRIVER; break;
    case CUDA_ERROR_STUB_LIBRARY: kind = STUB; break;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE: kind = NO_DEVICE; break;
    case CUDA_ERROR_DEVICE_UNAVAILABLE: kind = BUSY; break;
    default: break;
    }
    if (kind != AVAILABLE) {
        /* One clear message: with no library there is no CUDA error to report, and the stub
         * leaves its error's name and message NULL ("(no name) (34): (no message)"). */
        if (kind != NO_LIBRARY && kind != STUB) {
            check_driver_(err, call, file, line);
            /* a low limit of open files can read as no device or a busy one */
            cuda_limit_hint(true, false, call);
        }
        explain(kind);
    }
    return check_driver_(err, call, file, line);
}

/* ---- command line --------------------------------------------------------------------- */

const char *lesson_prog = "lesson";

/* At exit: a story that could not be written (a full disk, `> /dev/full`) is an error, not a
 * success. Flush stdout and, if any write to it failed, say so and exit 1. */
static void check_stdout_at_exit(void)
{
    errno = 0;
    bool failed = fflush(stdout) != 0;
    int err = errno;
    failed = failed || ferror(stdout);
    if (!failed)
        return;
    if (err)
        fprintf(stderr, "%s: write error on standard output: %s\n", lesson_prog, strerror(err));
    else
        fprintf(stderr, "%s: write error on standard output\n", lesson_prog);
    _exit(EXIT_CHECK);
}

void lesson_init(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    lesson_prog = slash ? slash + 1 : (argv0 ? argv0 : "lesson");
    /* Started with stdin, stdout or stderr closed (`prog >&-`), the next file the program
     * opens would get that number and receive its output: give each closed one /dev/null. */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (got >= 0 && got != fd)
                close(got);
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* line by line, also into a pipe */
    atexit(check_stdout_at_exit);
}

/* Only digits, with one leading '-' where negative values are allowed: strtol alone would
 * also take leading blanks and a '+' ("+4", " 4"), though not trailing ones ("4 "). */
static bool plain_integer(const char *text, bool negative_ok)
{
    if (negative_ok && *text == '-')
        text++;
    if (*text == '\0')
        return false;
    for (; *text; text++)
        if (*text < '0' || *text > '9')
            return false;
    return true;
}

bool parse_long(const char *text, long min, long max, const char *what, long *out)
{
    char *end = NULL;
    errno = 0;
    bool plain = text && plain_integer(text, min < 0);
    long v = plain ? strtol(text, &end, 10) : 0;
    if (!plain || end == text || *end != '\0' || errno == ERANGE || v < min || v > max) {
        fprintf(stderr, "%s: %s must be an integer from %ld to %ld, not '%s'\n", lesson_prog, what,
                min, max, text ? text : "");
        return false;
    }
    *out = v;
    return true;
}

bool parse_bytes(const char *text, size_t min, size_t max, const char *what, size_t *out)
{
    char min_s[32], max_s[32];
    char *end = NULL;
    errno = 0;
    bool ok = text && *text >= '0' && *text <= '9';
    unsigned long long v = ok ? strtoull(text, &end, 10) : 0;
    unsigned shift = 0;
    if (ok && errno == 0) {
        const char *s = end;
        switch (*s) {
        case 'k':
        case 'K':
            shift = 10;
            s++;
            break;
        case 'm':
        case 'M':
            shift = 20;
            s++;
            break;
        case 'g':
        case 'G':
            shift = 30;
            s++;
            break;
        default: break;
        }
        if (shift && (strcmp(s, "iB") == 0 || strcmp(s, "B") == 0))
            s += strlen(s);
        else if (!shift && (strcmp(s, "B") == 0))
            s++;
        ok = *s == '\0' && v <= (SIZE_MAX >> shift);
    } else {
        ok = false;
    }
    size_t bytes = ok ? (size_t)(v << shift) : 0;
    if (!ok || bytes < min || bytes > max) {
        fprintf(stderr,
                "%s: %s must be a size from %s to %s (like 4096, 64K, 256M, 1G), not '%s'\n",
                lesson_prog, what, format_bytes(min, min_s, sizeof min_s),
                format_bytes(max, max_s, sizeof max_s), text ? text : "");
        return false;
    }
    *out = bytes;
    return true;
}

const char *format_bytes(size_t bytes, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = (double)bytes;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (v == (double)(long long)v)
        snprintf(buf, len, "%lld %s", (long long)v, unit[u]);
    else
        snprintf(buf, len, "%.2f %s", v, unit[u]);
    return buf;
}

/* ---- statistics ----------------------------------------------------------------------- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sort_doubles(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
}

double median_of(double *v, int n)
{
    sort_doubles(v, n);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- time ----------------------------------------------------------------------------- */

double host_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- claims and the verdict ------------------------------------------------------------ */

static int claims_total, claims_failed, claims_not_judged;

bool claim(bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  %s ", cond ? "[ok]  " : "[FAIL]");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    claims_total++;
    if (!cond)
        claims_failed++;
    return cond;
}

void not_judged(const char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  [n/j]  ");
    vprintf(fmt, ap);
    printf(" - not judged here: %s\n", why);
    va_end(ap);
    claims_not_judged++;
}

int verdict(bool ok_so_far)
{
    char nj[48] = "";
    if (claims_not_judged > 0)
        snprintf(nj, sizeof nj, ", %d not judged", claims_not_judged);
    if (ok_so_far && claims_failed == 0) {
        printf("RESULT: PASS - all %d checks passed%s\n", claims_total, nj);
        return EXIT_OK;
    }
    if (!ok_so_far && claims_failed == 0)
        printf("RESULT: FAIL - a CUDA call failed (see stderr) after %d checks passed%s\n",
               claims_total, nj);
    else
        printf("RESULT: FAIL - %d of %d checks failed%s\n", claims_failed, claims_total, nj);
    return EXIT_CHECK;
}
