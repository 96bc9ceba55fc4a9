/*
 * 02_driver_context - the Driver API's explicit contexts against the runtime's primary context.
 *
 * "cuCtxCreate or cudaSetDevice?" The program answers with one numbered step per idea, and a
 * claim(...) line for every fact it states (README.md annotates the output):
 *   1. the explicit start: cuInit, then the devices, their names, capability and memory;
 *   2. a context of our own with cuCtxCreate (the CUDA 13 signature), what it costs in time
 *      and in device memory;
 *   3. the context stack of one thread: create, pop, push, set, as it changes;
 *   4. memory belongs to a context: cuMemAlloc in two contexts, the owner of each allocation;
 *   5. the runtime on the same thread: it works in the user context that is current, and goes
 *      back to the primary context (shared with cuDevicePrimaryCtxRetain) once it is popped;
 *   6. contexts are per thread: a new thread has none until it binds one;
 *   7. every device: one context per GPU, an allocation and a copy in each, verified;
 *   8. what a context holds, and when to choose which API.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

/* kernel.cu */
cudaError_t launch_add_one(unsigned int *data, int n);

enum {
    MAX_DEVICES = 64,
    MAX_REPEAT = 50,
    WORDS = 256 * 1024, /* each test buffer: 1 MiB of unsigned int */
};
#define BYTES ((size_t)WORDS * sizeof(unsigned int))
#define MIB (1024.0 * 1024.0)

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--repeat N] [--help]\n"
            "Creates Driver API contexts next to the runtime's primary context and checks\n"
            "every claim it prints: the context stack, who owns an allocation, threads, devices.\n"
            "  -d, --device N   the GPU for steps 2 to 6 (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -r, --repeat N   context create/destroy rounds to time in step 2 (1 to %d, default 5)\n"
            "  -h, --help       this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
            "             2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog, MAX_REPEAT);
}

static const char *error_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

/* The contexts this lesson makes, named so the story reads "ctxA" rather than an address. */
static CUcontext ctx_a, ctx_b, primary_ctx;
static CUcontext dev_ctx[MAX_DEVICES];
static int dev_ctx_count;

static const char *name_of(CUcontext c)
{
    static char buf[4][24];
    static int next;
    if (!c)
        return "none";
    if (c == ctx_a)
        return "ctxA";
    if (c == ctx_b)
        return "ctxB";
    if (c == primary_ctx)
        return "primary";
    for (int i = 0; i < dev_ctx_count; i++) {
        if (c == dev_ctx[i]) {
            next = (next + 1) % 4;
            snprintf(buf[next], sizeof buf[next], "ctx%d", i);
            return buf[next];
        }
    }
    return "another context";
}

/* cuCtxCreate changed in CUDA 13: it gained a CUctxCreateParams * (NULL: no execution
 * affinity, no CIG) before the flags. The seeds' three-argument call is the CUDA 12 form. */
static bool create_context(CUcontext *ctx, CUdevice dev, const char *file, int line)
{
#if CUDA_VERSION >= 13000
    return check_driver_(cuCtxCreate(ctx, NULL, 0, dev), "cuCtxCreate(&ctx, NULL, 0, dev)", file,
                         line);
#else
    return check_driver_(cuCtxCreate(ctx, 0, dev), "cuCtxCreate(&ctx, 0, dev)", file, line);
#endif
}
#define CREATE_CONTEXT(ctx, dev) create_context((ctx), (dev), __FILE__, __LINE__)
#if CUDA_VERSION >= 13000
#define CREATE_FORM "cuCtxCreate(&ctx, NULL, 0, dev)   (CUDA 13: CUctxCreateParams *, flags, device)"
#else
#define CREATE_FORM "cuCtxCreate(&ctx, 0, dev)   (CUDA 12: flags, device)"
#endif

/* ---- small helpers ---------------------------------------------------------------------- */

static CUcontext current(bool *ok)
{
    CUcontext c = NULL;
    if (!checkDriver(cuCtxGetCurrent(&c)))
        *ok = false;
    return c;
}

static CUcontext owner_of(CUdeviceptr p, bool *ok)
{
    CUcontext c = NULL;
    if (!checkDriver(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p)))
        *ok = false;
    return c;
}

static size_t free_memory(bool *ok)
{
    size_t free_b = 0, total_b = 0;
    if (!checkDriver(cuMemGetInfo(&free_b, &total_b)))
        *ok = false;
    return free_b;
}

static void fill(unsigned int *h, unsigned int seed)
{
    for (int i = 0; i < WORDS; i++)
        h[i] = seed * 2654435761u + (unsigned int)i;
}

static int wrong_words(const unsigned int *h, unsigned int seed, unsigned int plus)
{
    int wrong = 0;
    for (int i = 0; i < WORDS; i++)
        wrong += h[i] != seed * 2654435761u + (unsigned int)i + plus;
    return wrong;
}

/* Free a driver allocation with its own context current (push, free, pop). */
static bool free_in(CUcontext ctx, CUdeviceptr *p)
{
    bool ok = true;
    if (!*p)
        return true;
    if (checkDriver(cuCtxPushCurrent(ctx))) {
        ok = checkDriver(cuMemFree(*p));
        CUcontext popped;
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    } else {
        ok = false;
    }
    *p = 0;
    return ok;
}

/* Free a runtime allocation with its context current. */
static bool cuda_free_in(CUcontext ctx, void **p)
{
    bool ok = true;
    if (!*p)
        return true;
    if (checkDriver(cuCtxPushCurrent(ctx))) {
        ok = checkRuntime(cudaFree(*p));
        CUcontext popped;
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    } else {
        ok = false;
    }
    *p = NULL;
    return ok;
}

/* The context stack as the program keeps it (the driver only shows its top). */
static CUcontext stack[8];
static int depth;

static void show_stack(const char *after, bool *ok)
{
    char line[160] = "";
    size_t used = 0;
    for (int i = 0; i < depth; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                 name_of(stack[i]));
    printf("   %-34s current = %-7s stack (bottom -> top): [%s]\n", after, name_of(current(ok)),
           line);
}

/* ---- step 6: a worker thread ---------------------------------------------------------- */

struct worker {
    CUcontext give;          /* the context the thread binds */
    CUresult at_start_r;
    CUcontext at_start;      /* current context when the thread starts */
    CUresult unbound_alloc;  /* cuMemAlloc before binding a context */
    CUcontext after_set;     /* current after cuCtxSetCurrent(give) */
    CUcontext owner;         /* owner of the allocation made after binding */
    CUcontext after_unset;   /* current after cuCtxSetCurrent(NULL) */
    bool ok;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    CUdeviceptr p = 0;
    w->ok = true;
    w->at_start_r = cuCtxGetCurrent(&w->at_start);
    if (!checkDriver(w->at_start_r)) {
        w->ok = false;
        return NULL;
    }
    w->unbound_alloc = cuMemAlloc(&p, BYTES); /* expected to fail: no context here */
    if (w->unbound_alloc == CUDA_SUCCESS)
        checkDriver(cuMemFree(p));
    p = 0;
    if (!checkDriver(cuCtxSetCurrent(w->give))) {
        w->ok = false;
        return NULL;
    }
    w->after_set = current(&w->ok);
    if (checkDriver(cuMemAlloc(&p, BYTES))) {
        w->owner = owner_of(p, &w->ok);
        w->ok = checkDriver(cuMemFree(p)) && w->ok;
    } else {
        w->ok = false;
    }
    w->ok = checkDriver(cuCtxSetCurrent(NULL)) && w->ok;
    w->after_unset = current(&w->ok);
    return NULL;
}

#define TRY(x)                                                                                 \
    do {                                                                                       \
        if (!(x)) {                                                                            \
            ok = false;                                                                        \
            goto cleanup;                                                                      \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long device = 0, repeat = 5;
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"repeat", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "d:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (!parse_long(optarg, 0, MAX_DEVICES - 1, "--device", &device)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'r':
            if (!parse_long(optarg, 1, MAX_REPEAT, "--repeat", &repeat)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }

    bool ok = true;
    unsigned int *host_in = NULL, *host_out = NULL;
    CUdeviceptr buf_a = 0, buf_b = 0, dev_buf[MAX_DEVICES] = {0};
    void *rt_in_a = NULL, *rt_in_primary = NULL;
    CUdevice dev = 0;
    int count = 0;
    char name[256];

    printf("02_driver_context: cuCtxCreate or cudaSetDevice? Contexts made by hand\n");

    /* 1. ----------------------------------------------------------------------------- */
    printf("\n1. The explicit start: cuInit, then the devices\n");
    CUresult r = cuDeviceGetCount(&count);
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuDeviceGetCount(&count)", __FILE__, __LINE__);
    printf("   before cuInit: cuDeviceGetCount -> %s (%d)\n", error_name(r), (int)r);
    claim(r == CUDA_ERROR_NOT_INITIALIZED,
          "the Driver API does nothing before cuInit (CUDA_ERROR_NOT_INITIALIZED)");
    double t0 = host_ms();
    if (!requireDriver(cuInit(0)))
        return verdict(false);
    double init_ms = host_ms() - t0;
    int driver_version = 0;
    if (!checkDriver(cuDriverGetVersion(&driver_version)) ||
        !checkDriver(cuDeviceGetCount(&count)))
        return verdict(false);
    if (count < 1) {
        fprintf(stderr, "%s: cannot run here: the driver reports no CUDA device\n", lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    if (device >= count) {
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, device, count, count - 1);
        return EXIT_USAGE;
    }
    printf("   cuInit(0) took %.1f ms; the driver supports CUDA %d.%d; cuDeviceGetCount -> %d device(s)\n",
           init_ms, driver_version / 1000, driver_version % 1000 / 10, count);
    int listed = 0;
    for (int d = 0; d < count && d < MAX_DEVICES; d++) {
        CUdevice cd;
        int major = 0, minor = 0;
        size_t total = 0;
        if (!checkDriver(cuDeviceGet(&cd, d)) ||
            !checkDriver(cuDeviceGetName(name, (int)sizeof name, cd)) ||
            !checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cd)) ||
            !checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cd)) ||
            !checkDriver(cuDeviceTotalMem(&total, cd)))
            return verdict(false);
        printf("   [device %d] \"%s\", compute capability %d.%d, %.2f GiB\n", d, name, major, minor,
               (double)total / (MIB * 1024.0));
        listed += name[0] != '\0' && major > 0 && total > 0;
    }
    claim(listed == count, "cuInit found %d device(s), each with a name, a compute capability and memory",
          count);
    if (!checkDriver(cuDeviceGet(&dev, (int)device)) ||
        !checkDriver(cuDeviceGetName(name, (int)sizeof name, dev)))
        return verdict(false);
    printf("   steps 2 to 6 use device %ld, \"%s\"\n", device, name);

    /* 2. ----------------------------------------------------------------------------- */
    printf("\n2. A context of our own: cuCtxCreate\n");
    printf("   CUDA %d.%d headers: %s\n", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, CREATE_FORM);
    printf("   (the seeds' cuCtxCreate(&ctx, 0, dev) is the CUDA 12 form and no longer compiles)\n");
    t0 = host_ms();
    TRY(CREATE_CONTEXT(&ctx_a, dev));
    double first_ms = host_ms() - t0;
    CUcontext now = current(&ok);
    printf("   ctxA = %p, created in %.1f ms (the first context of this process)\n", (void *)ctx_a,
           first_ms);
    claim(now == ctx_a, "a context is current as soon as cuCtxCreate returns (ctxA)");

    printf("   %ld rounds of create + destroy, watched from ctxA with cuMemGetInfo:\n", repeat);
    double create_ms[MAX_REPEAT], destroy_ms[MAX_REPEAT], taken_mib[MAX_REPEAT];
    double worst_return_mib = 0.0;
    bool back_to_a = true;
    for (int i = 0; i < repeat; i++) {
        CUcontext tmp = NULL;
        size_t before = free_memory(&ok);
        t0 = host_ms();
        TRY(CREATE_CONTEXT(&tmp, dev));
        create_ms[i] = host_ms() - t0;
        size_t with_it = free_memory(&ok); /* device-wide figure; tmp is current now */
        t0 = host_ms();
        TRY(checkDriver(cuCtxDestroy(tmp)));
        destroy_ms[i] = host_ms() - t0;
        back_to_a = back_to_a && current(&ok) == ctx_a;
        size_t after = free_memory(&ok);
        taken_mib[i] = ((double)before - (double)with_it) / MIB;
        double not_returned = ((double)before - (double)after) / MIB;
        if (not_returned > worst_return_mib)
            worst_return_mib = not_returned;
        if (i == 0)
            printf("     round 1: free device memory %.1f MiB before, %.1f MiB with the new context, "
                   "%.1f MiB after destroying it\n",
                   before / MIB, with_it / MIB, after / MIB);
    }
    TRY(ok);
    int n = (int)repeat;
    double create_med = median_of(create_ms, n), destroy_med = median_of(destroy_ms, n);
    double taken_med = median_of(taken_mib, n);
    printf("     cuCtxCreate : median %.1f ms (min %.1f, max %.1f)\n", create_med, create_ms[0],
           create_ms[n - 1]);
    printf("     cuCtxDestroy: median %.1f ms (min %.1f, max %.1f)\n", destroy_med, destroy_ms[0],
           destroy_ms[n - 1]);
    printf("     device memory a context takes: median %.1f MiB (min %.1f, max %.1f)\n", taken_med,
           taken_mib[0], taken_mib[n - 1]);
    claim(taken_mib[0] > 0.0, "every new context took device memory: %.1f MiB or more", taken_mib[0]);
    claim(worst_return_mib <= 2.0, "cuCtxDestroy gave that memory back (within 2 MiB each round)");
    claim(back_to_a, "destroying the current context popped it: ctxA was current again each time");
    claim(create_med > 1.0, "a context is costly to make: median %.1f ms, more than 1 ms", create_med);

    /* 3. ----------------------------------------------------------------------------- */
    printf("\n3. The context stack of this thread\n");
    depth = 0;
    stack[depth++] = ctx_a;
    show_stack("after cuCtxCreate(ctxA):", &ok);
    TRY(CREATE_CONTEXT(&ctx_b, dev));
    stack[depth++] = ctx_b;
    show_stack("after cuCtxCreate(ctxB):", &ok);
    claim(current(&ok) == ctx_b, "cuCtxCreate pushed ctxB on top of ctxA: ctxB is current");

    CUcontext popped = NULL;
    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    printf("   cuCtxPopCurrent returned %s\n", name_of(popped));
    claim(popped == ctx_b && current(&ok) == ctx_a,
          "popping returned ctxB and made ctxA, the one below, current again");

    TRY(checkDriver(cuCtxPushCurrent(ctx_b)));
    stack[depth++] = ctx_b;
    show_stack("after cuCtxPushCurrent(ctxB):", &ok);
    claim(current(&ok) == ctx_b, "cuCtxPushCurrent(ctxB) made ctxB current above ctxA");

    TRY(checkDriver(cuCtxSetCurrent(ctx_a)));
    stack[depth - 1] = ctx_a;
    show_stack("after cuCtxSetCurrent(ctxA):", &ok);
    claim(current(&ok) == ctx_a, "cuCtxSetCurrent(ctxA) replaced the top of the stack, it did not push");

    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    CUcontext after_first = current(&ok);
    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    CUcontext after_second = current(&ok);
    claim(after_first == ctx_a && after_second == NULL,
          "two pops emptied the stack (ctxA, then none): the stack held two entries, not three");

    popped = (CUcontext)(uintptr_t)0x5eed;
    r = cuCtxPopCurrent(&popped);
    printf("   cuCtxPopCurrent on the empty stack -> %s (%d)\n", error_name(r), (int)r);
    claim(r != CUDA_SUCCESS, "popping an empty stack is an error, not a no-op");

    TRY(checkDriver(cuCtxPushCurrent(ctx_a)));
    stack[depth++] = ctx_a;
    show_stack("after cuCtxPushCurrent(ctxA):", &ok);
    TRY(ok);

    /* 4. ----------------------------------------------------------------------------- */
    printf("\n4. Memory belongs to a context\n");
    printf("   Runtime API (seed 000)              Driver API\n");
    printf("   cudaMalloc(void **p, size)          cuMemAlloc(CUdeviceptr *p, size)\n");
    printf("   cudaMemcpy(.., HostToDevice)        cuMemcpyHtoD(dst, src, size)\n");
    printf("   cudaMemcpy(.., DeviceToHost)        cuMemcpyDtoH(dst, src, size)\n");
    printf("   cudaFree(p)                         cuMemFree(p)\n");
    printf("   context: the current one, else the  context: the current one, which you made\n");
    printf("   device's primary (made on demand)   (no current context: CUDA_ERROR_INVALID_CONTEXT)\n");
    host_in = malloc(BYTES);
    host_out = malloc(BYTES);
    if (!host_in || !host_out) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    /* ctxA is current: this allocation is ctxA's. */
    fill(host_in, 1);
    TRY(checkDriver(cuMemAlloc(&buf_a, BYTES)));
    TRY(checkDriver(cuMemcpyHtoD(buf_a, host_in, BYTES)));
    memset(host_out, 0, BYTES);
    TRY(checkDriver(cuMemcpyDtoH(host_out, buf_a, BYTES)));
    int wrong_a = wrong_words(host_out, 1, 0);
    /* Push ctxB: this one is ctxB's. */
    TRY(checkDriver(cuCtxPushCurrent(ctx_b)));
    fill(host_in, 2);
    bool b_ok = checkDriver(cuMemAlloc(&buf_b, BYTES)) &&
                checkDriver(cuMemcpyHtoD(buf_b, host_in, BYTES));
    memset(host_out, 0, BYTES);
    b_ok = b_ok && checkDriver(cuMemcpyDtoH(host_out, buf_b, BYTES));
    TRY(checkDriver(cuCtxPopCurrent(&popped)) && b_ok);
    int wrong_b = wrong_words(host_out, 2, 0);
    CUcontext own_a = owner_of(buf_a, &ok), own_b = owner_of(buf_b, &ok);
    TRY(ok);
    printf("   in ctxA: cuMemAlloc 1 MiB at 0x%llx, copied there and back: %d wrong\n",
           (unsigned long long)buf_a, wrong_a);
    printf("   in ctxB: cuMemAlloc 1 MiB at 0x%llx, copied there and back: %d wrong\n",
           (unsigned long long)buf_b, wrong_b);
    printf("   cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_CONTEXT): first -> %s, second -> %s\n",
           name_of(own_a), name_of(own_b));
    claim(wrong_a == 0 && wrong_b == 0, "cuMemcpyHtoD / cuMemcpyDtoH moved the data intact in both contexts");
    claim(own_a == ctx_a, "the allocation made while ctxA was current belongs to ctxA");
    claim(own_b == ctx_b, "the allocation made while ctxB was current belongs to ctxB");

    /* 5. ----------------------------------------------------------------------------- */
    printf("\n5. The runtime and the driver on one thread\n");
    printf("   a) the primary context through the Driver API (no runtime call yet)\n");
    unsigned int flags = 0;
    int active_before = -1, active_retained = -1, active_released = -1;
    TRY(checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_before)));
    TRY(checkDriver(cuDevicePrimaryCtxRetain(&primary_ctx, dev)));
    bool retain_ok = checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_retained));
    CUcontext still = current(&ok);
    TRY(checkDriver(cuDevicePrimaryCtxRelease(dev)) && retain_ok && ok);
    TRY(checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_released)));
    printf("   cuDevicePrimaryCtxGetState: active = %d; cuDevicePrimaryCtxRetain -> primary = %p, "
           "active = %d;\n   cuDevicePrimaryCtxRelease -> active = %d; current all along: %s\n",
           active_before, (void *)primary_ctx, active_retained, active_released, name_of(still));
    claim(active_before == 0, "user contexts do not start the primary context: it was inactive");
    claim(active_retained == 1 && primary_ctx != ctx_a && primary_ctx != ctx_b,
          "cuDevicePrimaryCtxRetain started it: a third context, neither ctxA nor ctxB");
    claim(still == ctx_a, "retaining the primary context did not make it current");
    claim(active_released == 0, "releasing the only reference ended it (inactive again)");
    primary_ctx = NULL; /* it is gone; the runtime will start a new one below */

    printf("   b) runtime calls while ctxA is current\n");
    int rt_device = -1, active_after_rt = -1;
    TRY(checkRuntime(cudaGetDevice(&rt_device)));
    fill(host_in, 3);
    TRY(checkRuntime(cudaMalloc(&rt_in_a, BYTES)));
    TRY(checkRuntime(cudaMemcpy(rt_in_a, host_in, BYTES, cudaMemcpyHostToDevice)));
    TRY(checkRuntime(launch_add_one(rt_in_a, WORDS)));
    TRY(checkRuntime(cudaDeviceSynchronize()));
    memset(host_out, 0, BYTES);
    TRY(checkRuntime(cudaMemcpy(host_out, rt_in_a, BYTES, cudaMemcpyDeviceToHost)));
    int wrong_rt = wrong_words(host_out, 3, 1);
    CUcontext own_rt = owner_of((CUdeviceptr)(uintptr_t)rt_in_a, &ok);
    now = current(&ok);
    TRY(checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_after_rt)) && ok);
    printf("   cudaGetDevice -> %d; cudaMalloc 1 MiB at %p -> owner %s; add_one<<<>>> ran: %d wrong\n",
           rt_device, rt_in_a, name_of(own_rt), wrong_rt);
    printf("   current context afterwards: %s; primary context active = %d\n", name_of(now),
           active_after_rt);
    claim(own_rt == ctx_a, "cudaMalloc allocated in ctxA, the current user context");
    claim(wrong_rt == 0 && rt_device == device,
          "the runtime's kernel ran in ctxA and its result is right");
    claim(now == ctx_a && active_after_rt == 0,
          "the runtime used ctxA as it found it: ctxA still current, no primary context started");
    TRY(cuda_free_in(ctx_a, &rt_in_a));

    printf("   c) pop ctxA: the runtime goes back to the device's primary context\n");
    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    int active_set = -1, active_ours = -1, active_back = -1;
    t0 = host_ms();
    TRY(checkRuntime(cudaSetDevice((int)device)));
    double set_ms = host_ms() - t0;
    CUcontext runtime_ctx = current(&ok);
    TRY(checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_set)) && ok);
    primary_ctx = runtime_ctx;
    TRY(checkRuntime(cudaMalloc(&rt_in_primary, BYTES)));
    CUcontext own_primary = owner_of((CUdeviceptr)(uintptr_t)rt_in_primary, &ok);
    CUcontext retained = NULL;
    TRY(checkDriver(cuDevicePrimaryCtxRetain(&retained, dev)));
    bool state_ok = checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_ours));
    TRY(checkDriver(cuDevicePrimaryCtxRelease(dev)) && state_ok);
    TRY(checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active_back)) && ok);
    stack[0] = runtime_ctx;
    depth = 1;
    show_stack("after cudaSetDevice:", &ok);
    printf("   cudaSetDevice(%ld) took %.1f ms; primary active = %d; cudaMalloc at %p -> owner %s\n",
           device, set_ms, active_set, rt_in_primary, name_of(own_primary));
    printf("   cuDevicePrimaryCtxRetain -> %s (%p); after our cuDevicePrimaryCtxRelease: active = %d\n",
           name_of(retained), (void *)retained, active_back);
    claim(runtime_ctx != NULL && runtime_ctx != ctx_a && runtime_ctx != ctx_b && active_set == 1,
          "with no context current, cudaSetDevice started the primary context and made it current");
    claim(own_primary == runtime_ctx, "cudaMalloc now allocates in the primary context");
    claim(retained == runtime_ctx && active_ours == 1,
          "cuDevicePrimaryCtxRetain hands the Driver API the very context the runtime uses");
    claim(active_back == 1,
          "releasing our reference left it active: the runtime holds its own (unlike cuCtxDestroy)");
    TRY(cuda_free_in(runtime_ctx, &rt_in_primary));

    /* 6. ----------------------------------------------------------------------------- */
    printf("\n6. Contexts are per thread\n");
    struct worker w = {.give = ctx_b};
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker_main, &w) != 0) {
        fprintf(stderr, "%s: pthread_create failed\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    pthread_join(thread, NULL);
    TRY(w.ok);
    now = current(&ok);
    TRY(ok);
    printf("   worker at start:              current = %s (main thread's: %s)\n",
           name_of(w.at_start), name_of(now));
    printf("   worker cuMemAlloc, unbound:    %s (%d)\n", error_name(w.unbound_alloc),
           (int)w.unbound_alloc);
    printf("   worker cuCtxSetCurrent(ctxB): current = %s; cuMemAlloc there -> owner %s\n",
           name_of(w.after_set), name_of(w.owner));
    printf("   worker cuCtxSetCurrent(NULL): current = %s\n", name_of(w.after_unset));
    claim(w.at_start == NULL, "a new thread starts with no current context, whatever its parent has");
    claim(w.unbound_alloc == CUDA_ERROR_INVALID_CONTEXT,
          "without one, cuMemAlloc fails with CUDA_ERROR_INVALID_CONTEXT");
    claim(w.after_set == ctx_b && w.owner == ctx_b,
          "cuCtxSetCurrent(ctxB) bound ctxB in the worker, and its allocation is ctxB's");
    claim(now == runtime_ctx, "the main thread's current context did not change (still the primary)");

    /* 7. ----------------------------------------------------------------------------- */
    printf("\n7. Every device: one context per GPU\n");
    int devices = count < MAX_DEVICES ? count : MAX_DEVICES;
    int own_ok = 0, data_ok = 0, made = 0;
    for (int d = 0; d < devices; d++) {
        CUdevice cd;
        TRY(checkDriver(cuDeviceGet(&cd, d)));
        TRY(CREATE_CONTEXT(&dev_ctx[d], cd)); /* pushed: current now */
        dev_ctx_count = d + 1;
        CUdevice ctx_dev = -1;
        fill(host_in, 100u + (unsigned int)d);
        bool step = checkDriver(cuCtxGetDevice(&ctx_dev)) &&
                    checkDriver(cuMemAlloc(&dev_buf[d], BYTES)) &&
                    checkDriver(cuMemcpyHtoD(dev_buf[d], host_in, BYTES));
        TRY(checkDriver(cuCtxPopCurrent(&popped)) && step);
        made += ctx_dev == cd && popped == dev_ctx[d];
    }
    /* Only after every device has its buffer, read each one back in its own context. */
    for (int d = 0; d < devices; d++) {
        CUdevice cd;
        TRY(checkDriver(cuDeviceGet(&cd, d)) && checkDriver(cuDeviceGetName(name, (int)sizeof name, cd)));
        TRY(checkDriver(cuCtxPushCurrent(dev_ctx[d])));
        memset(host_out, 0, BYTES);
        CUcontext owner = NULL;
        int ordinal = -1;
        bool step = checkDriver(cuMemcpyDtoH(host_out, dev_buf[d], BYTES)) &&
                    checkDriver(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, dev_buf[d])) &&
                    checkDriver(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                                      dev_buf[d]));
        TRY(checkDriver(cuCtxPopCurrent(&popped)) && step);
        int wrong = wrong_words(host_out, 100u + (unsigned int)d, 0);
        printf("   [device %d] \"%s\": %s = %p, 1 MiB at 0x%llx, owner %s, ordinal %d, %d wrong\n", d,
               name, name_of(dev_ctx[d]), (void *)dev_ctx[d], (unsigned long long)dev_buf[d],
               name_of(owner), ordinal, wrong);
        own_ok += owner == dev_ctx[d] && ordinal == d;
        data_ok += wrong == 0;
    }
    for (int d = devices - 1; d >= 0; d--) {
        TRY(free_in(dev_ctx[d], &dev_buf[d]));
        TRY(checkDriver(cuCtxDestroy(dev_ctx[d])));
        dev_ctx[d] = NULL;
        dev_ctx_count = d;
    }
    now = current(&ok);
    TRY(ok);
    claim(made == devices, "each of the %d device(s) got its own context, current on the right device",
          devices);
    claim(own_ok == devices, "each buffer belongs to its device's context and lives on that device (%d device(s))",
          devices);
    claim(data_ok == devices,
          "every buffer held its own data after all the devices were used (%d device(s))", devices);
    claim(now == runtime_ctx, "after pushing and popping them all, the primary context is current again");
    printf("   Contexts are isolated: each has its own allocations, modules, streams and events,\n"
           "   and those handles belong to it alone. A kernel on one GPU reads another GPU's\n"
           "   memory only once peer access is enabled between their contexts (cuCtxEnablePeerAccess).\n");

    /* 8. ----------------------------------------------------------------------------- */
    printf("\n8. What a context holds, and which API to choose\n");
    printf("   A context is the GPU-side state of one process on one device: its memory\n"
           "   allocations and address mappings, the modules (kernels) loaded into it, its\n"
           "   streams and events, its limits and cache settings, and its error state (a fault\n"
           "   inside a kernel spoils the context it ran in).\n");
    printf("   Runtime API: one primary context per device, made on first need and shared by every\n"
           "   thread and library (cuBLAS, cuDNN ...) in the process. Choose it for applications.\n");
    printf("   Driver API: contexts you create, push, pop and destroy yourself, modules loaded at\n"
           "   run time (JIT), explicit lifetimes. Choose it for frameworks, plugins and tools; and\n"
           "   prefer cuDevicePrimaryCtxRetain over cuCtxCreate to share a device with the runtime.\n");

cleanup:
    for (int d = dev_ctx_count - 1; d >= 0; d--) {
        if (dev_ctx[d]) {
            ok = free_in(dev_ctx[d], &dev_buf[d]) && ok;
            ok = checkDriver(cuCtxDestroy(dev_ctx[d])) && ok;
        }
    }
    if (rt_in_a)
        ok = cuda_free_in(ctx_a, &rt_in_a) && ok;
    if (rt_in_primary && primary_ctx)
        ok = cuda_free_in(primary_ctx, &rt_in_primary) && ok;
    if (buf_b)
        ok = free_in(ctx_b, &buf_b) && ok;
    if (buf_a)
        ok = free_in(ctx_a, &buf_a) && ok;
    if (ctx_b)
        ok = checkDriver(cuCtxDestroy(ctx_b)) && ok;
    if (ctx_a)
        ok = checkDriver(cuCtxDestroy(ctx_a)) && ok;
    free(host_in);
    free(host_out);
    printf("\n");
    return verdict(ok);
}
