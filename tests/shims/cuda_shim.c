/*
 * tests/shims/cuda_shim.c - a forwarding libcuda.so.1 for tests: a program sees the machine
 * the environment describes (another compute mode, one copy engine, an older driver, ...)
 * while everything else goes to a real driver library (or the toolkit's stub).
 *
 * Build (gcc only, no nvcc; tests/shims/build does it):
 *     bash tests/shims/build DIR [REAL_LIBCUDA]     ->  DIR/libcuda.so.1 (and the other shims)
 * REAL_LIBCUDA defaults to the installed driver's libcuda.so.1, else the toolkit's stub. Every
 * function that library exports is forwarded (the build generates a jump per symbol), except
 * those defined below, which apply the overrides. Use:
 *     LD_LIBRARY_PATH=DIR CUDA_SHIM_COMPUTE_MODE=exclusive_process ./program
 * (DIR must come first on LD_LIBRARY_PATH). The runtime (libcudart) reaches the driver through
 * cuGetProcAddress: that is intercepted too, so cudaDeviceGetAttribute, cudaSetDevice, ... see
 * the same machine as the Driver API.
 *
 * The environment (each optional):
 *   CUDA_SHIM_REAL=path            the library to forward to (default: the one built in)
 *   CUDA_SHIM_COMPUTE_MODE=default|exclusive_process|prohibited (or 0, 3, 2 as in CUcomputemode)
 *       exclusive_process: a process's first context on a device (primary or created) takes
 *       a lock (flock) on CUDA_SHIM_LOCK.<device> (default $TMPDIR/cuda-shim-<uid>.lock); while
 *       another process holds it, creating one fails with CUDA_ERROR_DEVICE_UNAVAILABLE (the
 *       runtime: cudaErrorDevicesUnavailable), as the driver does. Released when the process
 *       releases its last context on the device, or exits. prohibited: every context refused.
 *   CUDA_SHIM_ASYNC_ENGINES=N      CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT (and GPU_OVERLAP)
 *   CUDA_SHIM_DRIVER_VERSION=12040 what cuDriverGetVersion answers (also to the runtime, which
 *                                  then refuses to start when it is older than the runtime's
 *                                  major version, as it would with that driver)
 *   CUDA_SHIM_INTEGRATED=0|1, CUDA_SHIM_PAGEABLE=0|1 (pageable memory access),
 *   CUDA_SHIM_HOST_PAGE_TABLES=0|1  the device attributes of those names
 *   CUDA_SHIM_HOST_POINTER_REGISTERED=0|1  CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_
 *                                  REGISTERED_MEM (over the stub 1, as on x86-64 Linux GPUs)
 *   CUDA_SHIM_NAME="Tesla T4"     the device's name
 *   CUDA_SHIM_CC=7.5               its compute capability; CUDA_SHIM_SMS=40 its multiprocessors;
 *   CUDA_SHIM_ECC=0|1              ECC; CUDA_SHIM_TOTAL_MIB=15360 its memory (cuDeviceTotalMem)
 *                                  (a T4: these, CUDA_SHIM_ASYNC_ENGINES=3 and, in the NVML
 *                                  shim, NVML_SHIM_LINK="3 16 3 16" NVML_SHIM_TOTAL_MIB=15360)
 *   CUDA_SHIM_MIG=1g.10gb          the device name gets " MIG 1g.10gb" (as a MIG slice's does)
 *                                  and one asynchronous engine unless CUDA_SHIM_ASYNC_ENGINES
 *   CUDA_SHIM_BURST=FROM:COUNT:FACTOR   a burst of noise in the timings: the FROM-th to the
 *                                  (FROM+COUNT-1)-th calls of cuEventElapsedTime (1-based, both
 *                                  versions, _v2 too, together, counted per process: every call
 *                                  counts, whatever it answers) give the real elapsed time
 *                                  multiplied by FACTOR (a number > 0: 3 makes them 3 times
 *                                  slower, 0.5 twice as fast); the other calls are untouched.
 *                                  The runtime's cudaEventElapsedTime reaches it through
 *                                  cuGetProcAddress (below), so both APIs see the burst.
 *                                  FROM >= 1, COUNT >= 0 whole numbers. A value of another form
 *                                  stops the program, when it loads the driver, with one line
 *                                  ("cuda-shim: CUDA_SHIM_BURST=...") and exit status 2: a
 *                                  test must not pass by a burst that never happened.
 *   CUDA_SHIM_TRACE=1              each intercepted call and cuGetProcAddress lookup on stderr
 * Behind the toolkit's stub (cuInit answers CUDA_ERROR_STUB_LIBRARY), the shim emulates one
 * device, so that a program can read the platform and print what it decides before the next
 * call (a context, an allocation) reaches the stub and stops it: cuInit, cuDriverGetVersion
 * (13000 unless overridden), cuDeviceGetCount (1), cuDeviceGet, cuDeviceGetName ("Emulated
 * GPU (CUDA shim over the stub driver)"), cuDeviceGetAttribute (a compute capability 9.0 card
 * with 3 engines, then the overrides), cuDeviceTotalMem (80 GiB), cuDeviceGetPCIBusId
 * ("00ff:00:00.0", CUDA_SHIM_BUS_ID, a bus that /sys does not have) answer, and so do
 * cuDevicePrimaryCtxRetain / Release (a made-up context, under the compute-mode rules above),
 * cuCtxSetCurrent, cuCtxGetCurrent and cuCtxGetDevice for it; with
 * CUDA_VISIBLE_DEVICES set empty, cuInit answers CUDA_ERROR_NO_DEVICE, as the driver does.
 * x86-64 and aarch64 Linux. The shim never changes the card: it only changes answers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* No cuda.h: the shim builds against any toolkit's headers, or none. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
enum {
    OK = 0,
    ERR_NOT_INITIALIZED = 3,
    ERR_STUB_LIBRARY = 34,
    ERR_DEVICE_UNAVAILABLE = 46,
    ERR_NO_DEVICE = 100,
    ERR_INVALID_DEVICE = 101,
    ERR_NOT_FOUND = 500,
};
enum {
    ATTR_GPU_OVERLAP = 15,
    ATTR_INTEGRATED = 18,
    ATTR_COMPUTE_MODE = 20,
    ATTR_ASYNC_ENGINE_COUNT = 40,
    ATTR_CC_MAJOR = 75,
    ATTR_CC_MINOR = 76,
    ATTR_MULTIPROCESSORS = 16,
    ATTR_ECC = 32,
    ATTR_PAGEABLE = 88,
    ATTR_HOST_POINTER_REGISTERED = 91,
    ATTR_HOST_PAGE_TABLES = 100,
};

#ifndef SHIM_REAL
#define SHIM_REAL "libcuda.so.1.real"
#endif

/* The forwarded functions' slots, generated by tests/shims/build (forward.c). */
struct forward {
    const char *name;
    void **slot; /* the real function */
    void *self;  /* this library's function of that name (the jump to it) */
};
extern const struct forward shim_forwards[] __attribute__((visibility("hidden")));

static struct {
    void *lib;
    bool fake;   /* the stub is behind: emulate one device */
    bool inited; /* (emulating) cuInit has succeeded: before it, the device calls answer 3 */
    int init_rc; /* what cuInit answered */
    int trace;
} S;

static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
    if (!S.trace)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuda-shim: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static CUresult missing(void)
{
    return ERR_NOT_FOUND;
}
static void *real(const char *name);

static void burst_parse(void);

__attribute__((constructor)) static void shim_open(void)
{
    burst_parse();
    const char *path = getenv("CUDA_SHIM_REAL");
    S.trace = getenv("CUDA_SHIM_TRACE") && *getenv("CUDA_SHIM_TRACE") == '1';
    S.lib = dlopen(path && *path ? path : SHIM_REAL, RTLD_NOW | RTLD_LOCAL);
    if (!S.lib)
        fprintf(stderr, "cuda-shim: cannot open the real driver library %s: %s\n",
                path && *path ? path : SHIM_REAL, dlerror());
    /* The stub answers everything with CUDA_ERROR_STUB_LIBRARY; cuDriverGetVersion may be
     * asked before cuInit and starts nothing in a real driver. */
    int v = 0;
    S.fake = S.lib && ((CUresult(*)(int *))real("cuDriverGetVersion"))(&v) == ERR_STUB_LIBRARY;
    for (const struct forward *f = shim_forwards; f->name; f++) {
        void *p = S.lib ? dlsym(S.lib, f->name) : NULL;
        *f->slot = p ? p : (void *)missing;
    }
}

/* The real library's function `name` (looked up once: a wrapper may be called often). */
static void *real(const char *name)
{
    static struct {
        const char *name;
        void *fn;
    } seen[64];
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    void *p = NULL;
    pthread_mutex_lock(&m);
    size_t i;
    for (i = 0; i < sizeof seen / sizeof seen[0] && seen[i].name; i++)
        if (strcmp(seen[i].name, name) == 0) {
            p = seen[i].fn;
            break;
        }
    if (!p) {
        p = S.lib ? dlsym(S.lib, name) : NULL;
        p = p ? p : (void *)missing;
        if (i < sizeof seen / sizeof seen[0]) {
            seen[i].name = name;
            seen[i].fn = p;
        }
    }
    pthread_mutex_unlock(&m);
    return p;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long n = strtol(v, &end, 10);
    return *end ? dflt : n;
}

static int compute_mode_override(void)
{
    const char *v = getenv("CUDA_SHIM_COMPUTE_MODE");
    if (!v || !*v)
        return -1;
    if (!strcmp(v, "default") || !strcmp(v, "0"))
        return 0;
    if (!strcmp(v, "prohibited") || !strcmp(v, "2"))
        return 2; /* CU_COMPUTEMODE_PROHIBITED */
    if (!strcmp(v, "exclusive_process") || !strcmp(v, "3"))
        return 3; /* CU_COMPUTEMODE_EXCLUSIVE_PROCESS */
    return -1;
}

/* ---- the device the environment describes --------------------------------------------- */

#define FAKE_NAME "Emulated GPU (CUDA shim over the stub driver)"

/* CUDA_SHIM_CC=7.5: its major (part 0) or minor (part 1); -1 when unset or not N.N */
static int cc_part(int part)
{
    const char *v = getenv("CUDA_SHIM_CC");
    int major, minor;
    char end;
    if (!v || sscanf(v, "%d.%d%c", &major, &minor, &end) != 2 || major < 1 || minor < 0)
        return -1;
    return part ? minor : major;
}

static void override_attribute(int *v, int attr)
{
    long n;
    switch (attr) {
    case ATTR_CC_MAJOR:
    case ATTR_CC_MINOR:
        if ((n = cc_part(attr == ATTR_CC_MINOR)) >= 0)
            *v = (int)n;
        break;
    case ATTR_MULTIPROCESSORS:
        if ((n = env_long("CUDA_SHIM_SMS", -1)) > 0)
            *v = (int)n;
        break;
    case ATTR_ECC:
        if ((n = env_long("CUDA_SHIM_ECC", -1)) >= 0)
            *v = n != 0;
        break;
    case ATTR_COMPUTE_MODE:
        if (compute_mode_override() >= 0)
            *v = compute_mode_override();
        break;
    case ATTR_ASYNC_ENGINE_COUNT:
    case ATTR_GPU_OVERLAP:
        n = env_long("CUDA_SHIM_ASYNC_ENGINES", getenv("CUDA_SHIM_MIG") ? 1 : -1);
        if (n >= 0)
            *v = attr == ATTR_GPU_OVERLAP ? n > 0 : (int)n;
        break;
    case ATTR_INTEGRATED:
        if ((n = env_long("CUDA_SHIM_INTEGRATED", -1)) >= 0)
            *v = (int)n;
        break;
    case ATTR_PAGEABLE:
        if ((n = env_long("CUDA_SHIM_PAGEABLE", -1)) >= 0)
            *v = (int)n;
        break;
    case ATTR_HOST_PAGE_TABLES:
        if ((n = env_long("CUDA_SHIM_HOST_PAGE_TABLES", -1)) >= 0)
            *v = (int)n;
        break;
    case ATTR_HOST_POINTER_REGISTERED:
        if ((n = env_long("CUDA_SHIM_HOST_POINTER_REGISTERED", -1)) >= 0)
            *v = (int)n;
        break;
    default: break;
    }
}

static int fake_attribute(int attr)
{
    switch (attr) {
    case ATTR_CC_MAJOR: return 9;
    case ATTR_CC_MINOR: return 0;
    case ATTR_ASYNC_ENGINE_COUNT: return 3;
    case ATTR_GPU_OVERLAP: return 1;
    case 1: return 1024; /* max threads per block */
    case 10: return 32;  /* warp size */
    case ATTR_MULTIPROCESSORS: return 132;
    case 19: return 1; /* can map host memory */
    case 31: return 1; /* concurrent kernels */
    case 41: return 1; /* unified addressing */
    case ATTR_HOST_POINTER_REGISTERED: return 1;
    default: return 0;
    }
}

static CUresult shim_get_attribute(int *v, int attr, CUdevice dev)
{
    CUresult rc;
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        rc = dev == 0 ? OK : ERR_INVALID_DEVICE;
        if (rc == OK)
            *v = fake_attribute(attr);
    } else {
        CUresult (*get)(int *, int, CUdevice);
        *(void **)&get = real("cuDeviceGetAttribute");
        rc = get(v, attr, dev);
    }
    if (rc == OK)
        override_attribute(v, attr);
    return rc;
}
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice dev)
{
    return shim_get_attribute(v, attr, dev);
}

static CUresult shim_init(unsigned flags)
{
    CUresult rc = ((CUresult(*)(unsigned))real("cuInit"))(flags);
    if (rc == ERR_STUB_LIBRARY)
        S.fake = true;
    S.init_rc = rc;
    trace("cuInit -> %d%s", rc, S.fake ? " (the stub: emulating one device)" : "");
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (S.fake && visible && !*visible)
        return ERR_NO_DEVICE; /* as the driver answers when the list hides every GPU */
    if (S.fake)
        S.inited = true;
    return S.fake ? OK : rc;
}
CUresult cuInit(unsigned flags)
{
    return shim_init(flags);
}

static CUresult shim_driver_version(int *v)
{
    CUresult rc = S.fake ? OK : ((CUresult(*)(int *))real("cuDriverGetVersion"))(v);
    if (S.fake && v)
        *v = 13000;
    long n = env_long("CUDA_SHIM_DRIVER_VERSION", -1);
    if (rc == OK && v && n > 0)
        *v = (int)n;
    return rc;
}
CUresult cuDriverGetVersion(int *v)
{
    return shim_driver_version(v);
}

static CUresult shim_device_count(int *n)
{
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        *n = 1;
        return OK;
    }
    return ((CUresult(*)(int *))real("cuDeviceGetCount"))(n);
}
CUresult cuDeviceGetCount(int *n)
{
    return shim_device_count(n);
}

static CUresult shim_device_get(CUdevice *d, int ordinal)
{
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        if (ordinal != 0)
            return ERR_INVALID_DEVICE;
        *d = 0;
        return OK;
    }
    return ((CUresult(*)(CUdevice *, int))real("cuDeviceGet"))(d, ordinal);
}
CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    return shim_device_get(d, ordinal);
}

static CUresult shim_device_name(char *name, int len, CUdevice dev)
{
    CUresult rc;
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        rc = dev == 0 ? OK : ERR_INVALID_DEVICE;
        if (rc == OK && len > 0)
            snprintf(name, (size_t)len, "%s", FAKE_NAME);
    } else {
        rc = ((CUresult(*)(char *, int, CUdevice))real("cuDeviceGetName"))(name, len, dev);
    }
    const char *given = getenv("CUDA_SHIM_NAME");
    if (rc == OK && given && *given && len > 0)
        snprintf(name, (size_t)len, "%s", given);
    const char *mig = getenv("CUDA_SHIM_MIG");
    if (rc == OK && mig && *mig && len > 0) {
        size_t used = strlen(name);
        snprintf(name + used, (size_t)len - used, " MIG %s", mig);
    }
    return rc;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    return shim_device_name(name, len, dev);
}

static CUresult shim_total_mem(size_t *bytes, CUdevice dev)
{
    CUresult rc = OK;
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        if (dev != 0)
            return ERR_INVALID_DEVICE;
        *bytes = (size_t)80 << 30;
    } else {
        rc = ((CUresult(*)(size_t *, CUdevice))real("cuDeviceTotalMem_v2"))(bytes, dev);
    }
    long mib = env_long("CUDA_SHIM_TOTAL_MIB", -1);
    if (rc == OK && mib > 0)
        *bytes = (size_t)mib << 20;
    return rc;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    return shim_total_mem(bytes, dev);
}

/* CUDA_SHIM_TOTAL_MIB: the card's memory in all is that, and what is free is the real figure
 * less the memory the smaller card lacks (at least 0), so that what a program's allocations
 * take from it still shows. */
static CUresult shim_mem_info(size_t *free_b, size_t *total_b)
{
    CUresult rc = ((CUresult(*)(size_t *, size_t *))real("cuMemGetInfo_v2"))(free_b, total_b);
    long mib = env_long("CUDA_SHIM_TOTAL_MIB", -1);
    if (rc == OK && mib > 0 && free_b && total_b) {
        size_t want = (size_t)mib << 20;
        size_t lacking = *total_b > want ? *total_b - want : 0;
        *free_b = *free_b > lacking ? *free_b - lacking : 0;
        *total_b = want;
    }
    return rc;
}
CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b)
{
    return shim_mem_info(free_b, total_b);
}

static CUresult shim_bus_id(char *bus, int len, CUdevice dev)
{
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        const char *b = getenv("CUDA_SHIM_BUS_ID");
        if (dev != 0)
            return ERR_INVALID_DEVICE;
        snprintf(bus, (size_t)len, "%s", b && *b ? b : "00ff:00:00.0");
        return OK;
    }
    return ((CUresult(*)(char *, int, CUdevice))real("cuDeviceGetPCIBusId"))(bus, len, dev);
}
CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice dev)
{
    return shim_bus_id(bus, len, dev);
}

/* ---- what the stub does not answer: error names, the loading mode ---------------------- */

/* The codes the lessons meet, with the names and descriptions the driver gives them. */
static const struct {
    int code;
    const char *name, *text;
} errors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

/* cuGetErrorName (text 0) and cuGetErrorString (text 1): the driver's answer, or, behind the
 * stub, the table's (an unknown code: CUDA_ERROR_INVALID_VALUE and NULL, as the driver does). */
static CUresult shim_error_text(CUresult code, const char **out, int text)
{
    CUresult rc = ((CUresult(*)(CUresult, const char **))real(text ? "cuGetErrorString"
                                                                   : "cuGetErrorName"))(code, out);
    if (!S.fake || rc != ERR_STUB_LIBRARY || !out)
        return rc;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == (int)code) {
            *out = text ? errors[i].text : errors[i].name;
            return OK;
        }
    *out = NULL;
    return 1; /* CUDA_ERROR_INVALID_VALUE */
}
CUresult cuGetErrorName(CUresult code, const char **name)
{
    return shim_error_text(code, name, 0);
}
CUresult cuGetErrorString(CUresult code, const char **text)
{
    return shim_error_text(code, text, 1);
}

/* cuModuleGetLoadingMode behind the stub: CUDA_MODULE_LOADING=EAGER gives
 * CU_MODULE_EAGER_LOADING (1), anything else the default, CU_MODULE_LAZY_LOADING (2). */
static CUresult shim_loading_mode(int *mode)
{
    if (!S.fake)
        return ((CUresult(*)(int *))real("cuModuleGetLoadingMode"))(mode);
    if (!S.inited)
        return ERR_NOT_INITIALIZED;
    if (!mode)
        return 1;
    const char *v = getenv("CUDA_MODULE_LOADING");
    *mode = v && !strcmp(v, "EAGER") ? 1 : 2;
    return OK;
}
CUresult cuModuleGetLoadingMode(int *mode)
{
    return shim_loading_mode(mode);
}

/* ---- contexts: exclusive-process and prohibited modes ---------------------------------- */

#define MAX_DEVICES 64
static pthread_mutex_t lock_mutex = PTHREAD_MUTEX_INITIALIZER;
static int held[MAX_DEVICES];    /* contexts this process holds per device */
static int lock_fd[MAX_DEVICES]; /* +1: 0 means none */
static struct {
    CUcontext ctx;
    CUdevice dev;
} created[256];

/* May this process make a context on dev? Counts it when so. */
static CUresult take(CUdevice dev)
{
    int mode = compute_mode_override();
    if (mode == 2) {
        trace("context on device %d refused: prohibited mode", dev);
        return ERR_DEVICE_UNAVAILABLE;
    }
    if (mode != 3 || dev < 0 || dev >= MAX_DEVICES)
        return OK;
    CUresult rc = OK;
    pthread_mutex_lock(&lock_mutex);
    if (held[dev] == 0 && !lock_fd[dev]) {
        char path[512];
        const char *base = getenv("CUDA_SHIM_LOCK");
        const char *tmp = getenv("TMPDIR");
        if (base && *base)
            snprintf(path, sizeof path, "%s.%d", base, dev);
        else
            snprintf(path, sizeof path, "%s/cuda-shim-%u.lock.%d", tmp && *tmp ? tmp : "/tmp",
                     (unsigned)getuid(), dev);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
            trace("context on device %d refused: another process holds %s (%s)", dev, path,
                  fd < 0 ? strerror(errno) : "exclusive-process mode");
            if (fd >= 0)
                close(fd);
            rc = ERR_DEVICE_UNAVAILABLE;
        } else {
            lock_fd[dev] = fd + 1;
            trace("device %d taken (exclusive-process mode, %s)", dev, path);
        }
    }
    if (rc == OK)
        held[dev]++;
    pthread_mutex_unlock(&lock_mutex);
    return rc;
}

/* A context on dev is gone (or was never made: undo take). */
static void give(CUdevice dev, int how_many)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return;
    pthread_mutex_lock(&lock_mutex);
    held[dev] = held[dev] > how_many ? held[dev] - how_many : 0;
    if (held[dev] == 0 && lock_fd[dev]) {
        close(lock_fd[dev] - 1); /* releases the flock */
        lock_fd[dev] = 0;
        trace("device %d released", dev);
    }
    pthread_mutex_unlock(&lock_mutex);
}

static void remember(CUcontext ctx, CUdevice dev)
{
    pthread_mutex_lock(&lock_mutex);
    for (size_t i = 0; i < sizeof created / sizeof created[0]; i++)
        if (!created[i].ctx) {
            created[i].ctx = ctx;
            created[i].dev = dev;
            break;
        }
    pthread_mutex_unlock(&lock_mutex);
}

static int forget(CUcontext ctx)
{
    int dev = -1;
    pthread_mutex_lock(&lock_mutex);
    for (size_t i = 0; i < sizeof created / sizeof created[0]; i++)
        if (created[i].ctx == ctx && ctx) {
            dev = created[i].dev;
            created[i].ctx = NULL;
            break;
        }
    pthread_mutex_unlock(&lock_mutex);
    return dev;
}

/* Behind the stub a context is a made-up handle: the next call that uses it reaches the stub. */
#define FAKE_CONTEXT ((CUcontext)(uintptr_t)0x5ca1ab1e)

static CUresult shim_retain(CUcontext *ctx, CUdevice dev)
{
    if (S.fake && !S.inited)
        return ERR_NOT_INITIALIZED;
    CUresult rc = take(dev);
    if (rc != OK)
        return rc;
    if (S.fake) {
        *ctx = FAKE_CONTEXT;
        trace("cuDevicePrimaryCtxRetain(%d) -> 0 (emulated)", dev);
        return OK;
    }
    CUresult (*retain)(CUcontext *, CUdevice);
    *(void **)&retain = real("cuDevicePrimaryCtxRetain");
    rc = retain(ctx, dev);
    if (rc != OK)
        give(dev, 1);
    trace("cuDevicePrimaryCtxRetain(%d) -> %d", dev, rc);
    return rc;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    return shim_retain(ctx, dev);
}

/* Release and Reset come in two versions (_v2 since CUDA 11.0); each wrapper calls the real
 * function of its own version, whoever asked for which. */
static CUresult shim_release(const char *name, CUdevice dev)
{
    CUresult (*release)(CUdevice);
    *(void **)&release = real(name);
    CUresult rc = S.fake ? OK : release(dev);
    if (rc == OK)
        give(dev, 1);
    return rc;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    return shim_release("cuDevicePrimaryCtxRelease_v2", dev);
}
CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return shim_release("cuDevicePrimaryCtxRelease", dev);
}

static CUresult shim_reset(const char *name, CUdevice dev)
{
    CUresult (*reset)(CUdevice);
    *(void **)&reset = real(name);
    CUresult rc = S.fake ? OK : reset(dev);
    /* the primary context is gone whatever its count; created contexts stay */
    if (rc == OK) {
        int mine = 0;
        pthread_mutex_lock(&lock_mutex);
        for (size_t i = 0; i < sizeof created / sizeof created[0]; i++)
            mine += created[i].ctx && created[i].dev == dev;
        int primary = dev >= 0 && dev < MAX_DEVICES ? held[dev] - mine : 0;
        pthread_mutex_unlock(&lock_mutex);
        if (primary > 0)
            give(dev, primary);
    }
    return rc;
}
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    return shim_reset("cuDevicePrimaryCtxReset_v2", dev);
}
CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    return shim_reset("cuDevicePrimaryCtxReset", dev);
}

/* cuCtxCreate: v2 (ctx, flags, dev), v3 (ctx, affinity params, n, flags, dev), v4 (ctx,
 * CUctxCreateParams *, flags, dev: CUDA 13). */
/* After the real cuCtxCreate answered rc for a context take() allowed. */
static CUresult created_one(CUresult rc, CUcontext *ctx, CUdevice dev)
{
    if (rc == OK)
        remember(*ctx, dev);
    else
        give(dev, 1);
    return rc;
}

CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice dev)
{
    CUresult (*create)(CUcontext *, unsigned, CUdevice);
    *(void **)&create = real("cuCtxCreate_v2");
    CUresult rc = take(dev);
    return rc != OK ? rc : created_one(create(ctx, flags, dev), ctx, dev);
}

CUresult cuCtxCreate_v3(CUcontext *ctx, void *params, int n, unsigned flags, CUdevice dev)
{
    CUresult (*create)(CUcontext *, void *, int, unsigned, CUdevice);
    *(void **)&create = real("cuCtxCreate_v3");
    CUresult rc = take(dev);
    return rc != OK ? rc : created_one(create(ctx, params, n, flags, dev), ctx, dev);
}

CUresult cuCtxCreate_v4(CUcontext *ctx, void *params, unsigned flags, CUdevice dev)
{
    CUresult (*create)(CUcontext *, void *, unsigned, CUdevice);
    *(void **)&create = real("cuCtxCreate_v4");
    CUresult rc = take(dev);
    return rc != OK ? rc : created_one(create(ctx, params, flags, dev), ctx, dev);
}

/* Behind the stub, the current context (per thread) is the shim's; else the driver's. */
static __thread CUcontext fake_current;

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    static void *set;
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        fake_current = ctx;
        return OK;
    }
    if (!set)
        set = real("cuCtxSetCurrent");
    return ((CUresult(*)(CUcontext))set)(ctx);
}

CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    static void *get;
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        *ctx = fake_current;
        return OK;
    }
    if (!get)
        get = real("cuCtxGetCurrent");
    return ((CUresult(*)(CUcontext *))get)(ctx);
}

CUresult cuCtxGetDevice(CUdevice *dev)
{
    static void *get;
    if (S.fake) {
        if (!S.inited)
            return ERR_NOT_INITIALIZED;
        if (!fake_current)
            return 201; /* CUDA_ERROR_INVALID_CONTEXT */
        *dev = 0;
        return OK;
    }
    if (!get)
        get = real("cuCtxGetDevice");
    return ((CUresult(*)(CUdevice *))get)(dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    int dev = forget(ctx);
    CUresult rc = ((CUresult(*)(CUcontext))real("cuCtxDestroy_v2"))(ctx);
    if (rc == OK && dev >= 0)
        give(dev, 1);
    else if (rc != OK && dev >= 0)
        remember(ctx, dev);
    return rc;
}

/* ---- timings: CUDA_SHIM_BURST ----------------------------------------------------------- */

typedef void *CUevent;
static struct {
    long from, count; /* calls from..from+count-1 (1-based); count 0: none */
    double factor;
} burst;
static long elapsed_calls; /* cuEventElapsedTime calls so far, both versions */

/* Reads CUDA_SHIM_BURST=FROM:COUNT:FACTOR; anything else: one line and exit 2. */
static void burst_parse(void)
{
    const char *v = getenv("CUDA_SHIM_BURST");
    if (!v || !*v)
        return;
    char *end = NULL;
    errno = 0;
    long from = strtol(v, &end, 10);
    bool good = end != v && *end == ':' && from >= 1;
    const char *p = end + 1;
    long count = good ? strtol(p, &end, 10) : -1;
    good = good && end != p && *end == ':' && count >= 0;
    p = end + 1;
    double factor = good ? strtod(p, &end) : 0;
    good = good && end != p && !*end && factor > 0 && factor < 1e9 && errno == 0;
    if (!good) {
        fprintf(stderr,
                "cuda-shim: CUDA_SHIM_BURST=%s: expected FROM:COUNT:FACTOR (whole numbers FROM "
                ">= 1, COUNT >= 0, a number FACTOR > 0), e.g. 3:2:4\n",
                v);
        exit(2);
    }
    burst.from = from;
    burst.count = count;
    burst.factor = factor;
}

static CUresult shim_elapsed(const char *name, float *ms, CUevent start, CUevent end)
{
    CUresult (*elapsed)(float *, CUevent, CUevent);
    *(void **)&elapsed = real(name);
    long call = __atomic_add_fetch(&elapsed_calls, 1, __ATOMIC_RELAXED);
    CUresult rc = elapsed(ms, start, end);
    if (rc == OK && ms && burst.count > 0 && call >= burst.from &&
        call - burst.from < burst.count) {
        trace("%s call %ld: %g ms -> %g ms (CUDA_SHIM_BURST)", name, call, (double)*ms,
              (double)*ms * burst.factor);
        *ms = (float)(*ms * burst.factor);
    }
    return rc;
}
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    return shim_elapsed("cuEventElapsedTime_v2", ms, start, end);
}
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    return shim_elapsed("cuEventElapsedTime", ms, start, end);
}

/* ---- cuGetProcAddress: how the runtime finds the functions above ------------------------ */

static CUresult shim_get_proc_address(const char *symbol, void **pfn, int version, uint64_t flags,
                                      int *status);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                             int *status);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags);
static CUresult shim_get_proc_address_v1(const char *symbol, void **pfn, int version,
                                         uint64_t flags)
{
    return shim_get_proc_address(symbol, pfn, version, flags, NULL);
}

/* What cuGetProcAddress answers for the functions defined here: the exported function of the
 * version asked for (first match, so the newest ABI of a name comes first), the address dlsym
 * gives too, as the real driver does. Every function this file defines must be here: else the
 * runtime, which finds its driver functions with cuGetProcAddress, goes around it (cuCtxCreate
 * was missing: lesson 02 read the driver's cuCtxCreate_v2 where dlsym gave the shim's, FAIL). */
static const struct {
    const char *name;
    int min_version; /* the ABI the wrapper has, from this CUDA version on */
    void *wrapper;
} intercepted[] = {
    {"cuInit", 2000, (void *)cuInit},
    {"cuDriverGetVersion", 2020, (void *)cuDriverGetVersion},
    {"cuDeviceGetCount", 2000, (void *)cuDeviceGetCount},
    {"cuDeviceGet", 2000, (void *)cuDeviceGet},
    {"cuDeviceGetName", 2000, (void *)cuDeviceGetName},
    {"cuDeviceGetAttribute", 2000, (void *)cuDeviceGetAttribute},
    {"cuDeviceTotalMem", 3020, (void *)cuDeviceTotalMem_v2},
    {"cuDeviceGetPCIBusId", 4010, (void *)cuDeviceGetPCIBusId},
    {"cuMemGetInfo", 3020, (void *)cuMemGetInfo_v2},
    {"cuGetErrorName", 6000, (void *)cuGetErrorName},
    {"cuGetErrorString", 6000, (void *)cuGetErrorString},
    {"cuModuleGetLoadingMode", 11070, (void *)cuModuleGetLoadingMode},
    {"cuDevicePrimaryCtxRetain", 7000, (void *)cuDevicePrimaryCtxRetain},
    {"cuDevicePrimaryCtxRelease", 11000, (void *)cuDevicePrimaryCtxRelease_v2},
    {"cuDevicePrimaryCtxRelease", 7000, (void *)cuDevicePrimaryCtxRelease},
    {"cuDevicePrimaryCtxReset", 11000, (void *)cuDevicePrimaryCtxReset_v2},
    {"cuDevicePrimaryCtxReset", 7000, (void *)cuDevicePrimaryCtxReset},
    {"cuCtxCreate", 12050, (void *)cuCtxCreate_v4},
    {"cuCtxCreate", 11040, (void *)cuCtxCreate_v3},
    {"cuCtxCreate", 3020, (void *)cuCtxCreate_v2},
    {"cuCtxDestroy", 4000, (void *)cuCtxDestroy_v2},
    {"cuCtxSetCurrent", 4000, (void *)cuCtxSetCurrent},
    {"cuCtxGetCurrent", 4000, (void *)cuCtxGetCurrent},
    {"cuCtxGetDevice", 2000, (void *)cuCtxGetDevice},
    {"cuEventElapsedTime", 12080, (void *)cuEventElapsedTime_v2},
    {"cuEventElapsedTime", 2000, (void *)cuEventElapsedTime},
    {"cuGetProcAddress", 12000, (void *)cuGetProcAddress_v2},
    {"cuGetProcAddress", 11030, (void *)cuGetProcAddress},
};

static CUresult shim_get_proc_address(const char *symbol, void **pfn, int version, uint64_t flags,
                                      int *status)
{
    CUresult (*get)(const char *, void **, int, uint64_t, int *);
    *(void **)&get = real("cuGetProcAddress_v2");
    CUresult rc = get(symbol, pfn, version, flags, status);
    trace("cuGetProcAddress(%s, %d) -> %d", symbol ? symbol : "(null)", version, rc);
    if (!symbol)
        return rc;

    for (size_t i = 0; i < sizeof intercepted / sizeof intercepted[0]; i++) {
        if (strcmp(symbol, intercepted[i].name) != 0 || version < intercepted[i].min_version)
            continue;
        /* Behind the stub only the emulated device's functions answer; the rest stay the
         * stub's (CUDA_ERROR_STUB_LIBRARY), so that the program stops there. */
        if (rc == OK || S.fake || rc == ERR_STUB_LIBRARY) {
            if (pfn)
                *pfn = intercepted[i].wrapper;
            if (status)
                *status = 0; /* CU_GET_PROC_ADDRESS_SUCCESS */
            return OK;
        }
    }
    /* Forwarded: this library's function of that name, as dlsym would give it. */
    for (const struct forward *f = shim_forwards; rc == OK && pfn && *pfn && f->name; f++)
        if (*f->slot == *pfn) {
            *pfn = f->self;
            break;
        }
    return rc;
}
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                             int *status)
{
    return shim_get_proc_address(symbol, pfn, version, flags, status);
}
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
    return shim_get_proc_address_v1(symbol, pfn, version, flags);
}
