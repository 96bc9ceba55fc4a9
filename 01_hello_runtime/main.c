/*
 * 01_hello_runtime - the Runtime API's lazy primary context, watched through the Driver API.
 *
 * The story, one numbered step per claim (README.md annotates the output):
 *   1. before any CUDA call the driver is not initialised;
 *   2. cudaGetDeviceCount initialises it but creates no context;
 *   3. cudaSetDevice creates the device's primary context and makes it current: the very
 *      context cuDevicePrimaryCtxRetain returns;
 *   4. the runtime and driver versions, and the rule between them;
 *   5. the check macros at work: an invalid call, a launch error caught by cudaGetLastError,
 *      and a device fault that only shows at synchronisation (in a child process);
 *   6. a kernel launched from C through an extern "C" launcher, its result verified;
 *   7. the current context belongs to a host thread.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

/* kernel.cu */
void launch_add_one(float *data, int n, int threads_per_block);
void launch_trap(void);

extern char **environ;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--help]\n"
            "Shows when the CUDA runtime initialises the driver and creates the primary\n"
            "context, and checks every claim it prints.\n"
            "  -d, --device N   the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -h, --help       this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
            "             2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog);
}

static const char *driver_error_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

/* ---- step 5c: a device fault, in a child process --------------------------------------- */

/* Runs in the child (--fault-demo): a fault is "sticky", it spoils the context for the rest
 * of the process, so the parent keeps its own context clean by watching from outside.
 * Exit 0 when the child saw what the lesson claims. */
static int fault_demo(int device)
{
    if (!checkRuntime(cudaSetDevice(device)))
        return EXIT_CHECK;
    launch_trap();
    cudaError_t at_launch = cudaGetLastError();
    cudaError_t at_sync = cudaDeviceSynchronize();
    void *p = NULL;
    cudaError_t afterwards = cudaMalloc(&p, 16);
    printf("   [child] cudaGetLastError() right after the launch -> %s\n",
           cudaGetErrorName(at_launch));
    printf("   [child] cudaDeviceSynchronize()                  -> %s (%d)\n",
           cudaGetErrorName(at_sync), (int)at_sync);
    printf("   [child] cudaMalloc() afterwards                  -> %s: the error is sticky\n",
           cudaGetErrorName(afterwards));
    if (afterwards == cudaSuccess)
        cudaFree(p);
    return at_launch == cudaSuccess && at_sync == cudaErrorLaunchFailure &&
                   afterwards == cudaErrorLaunchFailure
               ? EXIT_OK
               : EXIT_CHECK;
}

static int run_fault_child(int device)
{
    char exe[4096], dev[16];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        perror("readlink /proc/self/exe");
        return -1;
    }
    exe[len] = '\0';
    snprintf(dev, sizeof dev, "%d", device);
    char *argv[] = {exe, "--fault-demo", "--device", dev, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, exe, NULL, NULL, argv, environ);
    if (err != 0) {
        fprintf(stderr, "%s: posix_spawn: %s\n", lesson_prog, strerror(err));
        return -1;
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- step 7: a second host thread ----------------------------------------------------- */

struct worker {
    int device;
    CUresult at_start_result;
    CUcontext at_start;    /* current context when the thread starts */
    CUcontext after_set;   /* after cudaSetDevice in this thread */
    bool ok;               /* every CUDA call in the thread succeeded */
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->at_start_result = cuCtxGetCurrent(&w->at_start);
    w->ok = checkDriver(w->at_start_result) && checkRuntime(cudaSetDevice(w->device)) &&
            checkDriver(cuCtxGetCurrent(&w->after_set));
    return NULL;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long device = 0;
    bool fault_child = false;
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {"fault-demo", no_argument, NULL, 'F'}, /* internal: step 5's child process */
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (!parse_long(optarg, 0, 1023, "--device", &device)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        case 'F': fault_child = true; break;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (fault_child)
        return fault_demo((int)device);

    bool ok = true;
    float *host = NULL, *dev_data = NULL;

    printf("01_hello_runtime: when does the CUDA runtime create a context?\n");

    /* 1. ----------------------------------------------------------------------------- */
    printf("\n1. Before any CUDA call\n");
    CUcontext ctx = (CUcontext)(uintptr_t)0x5eed; /* a marker, to see if the call writes it */
    CUresult r = cuCtxGetCurrent(&ctx);
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuCtxGetCurrent(&ctx)", __FILE__, __LINE__);
    printf("   cuCtxGetCurrent(&ctx) -> %s (%d); ctx still holds our marker %p\n",
           driver_error_name(r), (int)r, (void *)ctx);
    printf("   (seed 001 printed \"(nil)\" here: it set ctx to NULL and ignored the result)\n");
    claim(r == CUDA_ERROR_NOT_INITIALIZED, "the driver is not initialised before the first CUDA call");

    /* 2. ----------------------------------------------------------------------------- */
    printf("\n2. cudaGetDeviceCount: the runtime's first call\n");
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return verdict(false);
    printf("   cudaGetDeviceCount -> %d device(s)\n", count);
    if (device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, device, count, count - 1);
        return EXIT_USAGE;
    }
    CUdevice cu_dev;
    unsigned int flags = 0;
    int active = -1;
    ctx = (CUcontext)(uintptr_t)0x5eed;
    r = cuCtxGetCurrent(&ctx);
    if (!checkDriver(r) || !checkDriver(cuDeviceGet(&cu_dev, (int)device)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(cu_dev, &flags, &active)))
        return verdict(false);
    printf("   cuCtxGetCurrent -> %s, ctx = %s\n", driver_error_name(r), ctx ? "not NULL" : "NULL");
    printf("   cuDevicePrimaryCtxGetState(device %ld) -> active = %d\n", device, active);
    claim(r == CUDA_SUCCESS, "cudaGetDeviceCount initialised the driver (cuCtxGetCurrent now succeeds)");
    claim(ctx == NULL, "no context is current yet");
    claim(active == 0, "the primary context of device %ld is not active yet", device);

    /* 3. ----------------------------------------------------------------------------- */
    printf("\n3. cudaSetDevice(%ld): the first call that needs a context\n", device);
    struct cudaDeviceProp prop;
    double t0 = host_ms();
    if (!checkRuntime(cudaSetDevice((int)device)))
        return verdict(false);
    double set_ms = host_ms() - t0;
    CUcontext current = NULL, primary = NULL;
    if (!checkDriver(cuCtxGetCurrent(&current)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(cu_dev, &flags, &active)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&primary, cu_dev)))
        return verdict(false);
    /* Retain adds a reference to the primary context; give it back at once. */
    ok = checkDriver(cuDevicePrimaryCtxRelease(cu_dev)) && ok;
    if (!checkRuntime(cudaGetDeviceProperties(&prop, (int)device)))
        return verdict(false);
    printf("   device %ld: \"%s\", compute capability %d.%d\n", device, prop.name, prop.major,
           prop.minor);
    printf("   cudaSetDevice took %.1f ms (it created the context: the cost of the first call)\n",
           set_ms);
    printf("   cuCtxGetCurrent            -> %p\n", (void *)current);
    printf("   cuDevicePrimaryCtxRetain   -> %p\n", (void *)primary);
    printf("   cuDevicePrimaryCtxGetState -> active = %d\n", active);
    claim(current != NULL, "cudaSetDevice made a context current");
    claim(current == primary, "it is the device's primary context, the one cuDevicePrimaryCtxRetain returns");
    claim(active == 1, "the primary context is now active");

    /* 4. ----------------------------------------------------------------------------- */
    printf("\n4. Versions\n");
    int runtime_version = 0, driver_version = 0;
    if (!checkRuntime(cudaRuntimeGetVersion(&runtime_version)) ||
        !checkRuntime(cudaDriverGetVersion(&driver_version)))
        return verdict(false);
    printf("   runtime (linked into this program) %d.%d, driver (libcuda.so.1) supports up to %d.%d\n",
           runtime_version / 1000, runtime_version % 1000 / 10, driver_version / 1000,
           driver_version % 1000 / 10);
    printf("   the runtime may not be newer than the driver (within one major version a newer\n"
           "   minor runtime still runs, without JIT of its newer PTX: minor version compatibility)\n");
    claim(runtime_version / 1000 <= driver_version / 1000,
          "the driver supports this runtime's major version");

    /* 5. ----------------------------------------------------------------------------- */
    printf("\n5. The check macros at work (the reports on stderr are expected)\n");
    printf("   a) an invalid call: cudaSetDevice(%d), one past the last device\n", count);
    int invalid = count;
    bool reported = !checkRuntime(cudaSetDevice(invalid));
    cudaError_t last = cudaGetLastError(); /* any failed runtime call also sets "last error" */
    int still = -1;
    if (!checkRuntime(cudaGetDevice(&still)))
        return verdict(false);
    printf("   cudaGetLastError() -> %s (%d), and reading it cleared it\n", cudaGetErrorName(last),
           (int)last);
    claim(reported && last == cudaErrorInvalidDevice,
          "checkRuntime reported cudaErrorInvalidDevice with this file and line");
    claim(still == device, "the failed call left device %ld current", device);

    printf("   b) a bad launch configuration: 2048 threads per block (the limit is %d)\n",
           prop.maxThreadsPerBlock);
    enum { N = 1 << 20 };
    size_t bytes = N * sizeof(float);
    if (!checkRuntime(cudaMalloc((void **)&dev_data, bytes))) {
        ok = false;
        goto cleanup;
    }
    launch_add_one(dev_data, N, 2048);
    cudaError_t launch_err = cudaGetLastError();
    printf("   cudaGetLastError() -> %s (%d): the launch never started\n", cudaGetErrorName(launch_err),
           (int)launch_err);
    cudaError_t after = cudaGetLastError();
    /* CUDA 13 reports a block dimension over the limit as cudaErrorInvalidValue; older
     * releases and many tutorials say cudaErrorInvalidConfiguration. Either is a launch error. */
    claim(launch_err == cudaErrorInvalidValue || launch_err == cudaErrorInvalidConfiguration,
          "cudaGetLastError caught the launch error at once, without synchronising");
    claim(after == cudaSuccess, "reading the error cleared it: a launch error is not sticky");

    printf("   c) a fault inside a running kernel (in a child process, since it ruins the context)\n");
    int child = run_fault_child((int)device);
    claim(child == 0, "the fault showed only at synchronisation, and every later call returned it");

    /* 6. ----------------------------------------------------------------------------- */
    printf("\n6. Seed 004's kernel, launched from C through an extern \"C\" launcher\n");
    host = malloc(bytes);
    if (!host) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    for (int i = 0; i < N; i++)
        host[i] = (float)(i % 1000) - 500.0f;
    if (!checkRuntime(cudaMemcpy(dev_data, host, bytes, cudaMemcpyHostToDevice))) {
        ok = false;
        goto cleanup;
    }
    launch_add_one(dev_data, N, 256);
    if (!checkRuntime(cudaGetLastError()) || !checkRuntime(cudaDeviceSynchronize()) ||
        !checkRuntime(cudaMemcpy(host, dev_data, bytes, cudaMemcpyDeviceToHost))) {
        ok = false;
        goto cleanup;
    }
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += host[i] != (float)(i % 1000) - 500.0f + 1.0f;
    printf("   add_one<<<%d, 256>>> on %d floats: %d wrong\n", (N + 255) / 256, N, wrong);
    claim(wrong == 0, "every element came back one larger");

    /* 7. ----------------------------------------------------------------------------- */
    printf("\n7. The current context belongs to a host thread\n");
    struct worker w = {.device = (int)device};
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker_main, &w) != 0) {
        fprintf(stderr, "%s: pthread_create failed\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    pthread_join(thread, NULL);
    if (!w.ok) {
        ok = false;
        goto cleanup;
    }
    printf("   new thread, at start:              cuCtxGetCurrent -> %s, ctx = %s\n",
           driver_error_name(w.at_start_result), w.at_start ? "not NULL" : "NULL");
    printf("   new thread, after cudaSetDevice(%ld): cuCtxGetCurrent -> %p\n", device,
           (void *)w.after_set);
    printf("   main thread's context:                                 %p\n", (void *)current);
    claim(w.at_start == NULL, "a new thread starts with no current context");
    claim(w.after_set == current, "its first runtime call made the same primary context current there");

cleanup:
    if (dev_data)
        ok = checkRuntime(cudaFree(dev_data)) && ok;
    free(host);
    printf("\n");
    return verdict(ok);
}
