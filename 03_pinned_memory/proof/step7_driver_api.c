/* 03_pinned_memory/proof/step7_driver_api.c - step 7: a common pinned-memory example, through the Driver
 * API. cuMemHostAlloc (PORTABLE, DEVICEMAP, WRITECOMBINED) and cuMemHostRegister give the same
 * kinds of pinned memory as the runtime's calls; cuMemcpyHtoDAsync / cuMemcpyDtoHAsync in a
 * cuStreamCreate stream, timed with cuEventRecord / cuEventElapsedTime, move them at the same
 * rate as cudaMemcpyAsync. Then a PORTABLE buffer from one device's context is used by another
 * device's context (two GPUs). The runtime's primary context is the Driver API's primary
 * context of the same device: cuDevicePrimaryCtxRetain hands us the very context the runtime
 * uses. The pinned memory comes from core.c's driver_host_alloc (cuMemHostAlloc, or malloc +
 * cuMemHostRegister); this file copies it with cuMemcpyHtoDAsync / cuMemcpyDtoHAsync, times the
 * copies with the Driver API's events and judges. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "pattern.h"

enum { RT_PINNED, DRV_PORTABLE, DRV_WC, DRV_REGISTERED, DRV_KINDS };
static const char *const drv_name[DRV_KINDS] = {
    "cudaMallocHost + cudaMemcpyAsync (runtime)", "cuMemHostAlloc(PORTABLE | DEVICEMAP)",
    "cuMemHostAlloc(WRITECOMBINED)", "cuMemHostRegister(malloc'd memory)"};

/* The Driver API's side of one context: a stream, two events, device memory. */
struct drv {
    CUstream s;
    CUevent e[2];
    CUdeviceptr d;
    struct gate *gate; /* the lesson's (primary context, as the runtime's copies), or one off */
};

static bool drv_open(struct drv *x, size_t bytes)
{
    return checkDriver(cuStreamCreate(&x->s, CU_STREAM_NON_BLOCKING)) &&
           checkDriver(cuEventCreate(&x->e[0], CU_EVENT_DEFAULT)) &&
           checkDriver(cuEventCreate(&x->e[1], CU_EVENT_DEFAULT)) &&
           checkDriver(cuMemAlloc(&x->d, bytes));
}

static bool drv_close(struct drv *x)
{
    bool ok = true;
    if (x->d)
        ok = checkDriver(cuMemFree(x->d)) && ok;
    for (int i = 0; i < 2; i++)
        if (x->e[i])
            ok = checkDriver(cuEventDestroy(x->e[i])) && ok;
    if (x->s)
        ok = checkDriver(cuStreamDestroy(x->s)) && ok;
    return ok;
}

/* A copy either way through the Driver API. */
static CUresult drv_copy(void *host, CUdeviceptr dev, size_t bytes, enum dir d, CUstream s)
{
    return d == H2D ? cuMemcpyHtoDAsync(dev, host, bytes, s)
                    : cuMemcpyDtoHAsync(host, dev, bytes, s);
}

/* One copy through the Driver API between two events, in ms. */
static bool drv_time(struct drv *x, void *host, size_t bytes, enum dir d, double *ms)
{
    float f = 0;
    bool ok = gate_hold(x->gate, (cudaStream_t)x->s) && checkDriver(cuEventRecord(x->e[0], x->s)) &&
              checkDriver(drv_copy(host, x->d, bytes, d, x->s)) &&
              checkDriver(cuEventRecord(x->e[1], x->s));
    gate_release(x->gate);
    if (!ok || !checkDriver(cuEventSynchronize(x->e[1])) ||
        !checkDriver(cuEventElapsedTime(&f, x->e[0], x->e[1])))
        return false;
    gate_check(x->gate);
    *ms = f;
    return true;
}

/* A comparison of rates from repetitions this far apart (max - min over the median, more than
 * 10%) is not judged: why gets the reason. */
static bool rounds_steady(double spread, char *why, size_t len)
{
    if (spread <= 0.10)
        return true;
    snprintf(why, len,
             "the repetitions of one buffer spread by %.0f%% (more than 10%%): something "
             "else used the link or host memory meanwhile (another program, in a container?)",
             100 * spread);
    return false;
}

struct copies1 {
    void *host;
    size_t bytes;
    enum dir d;
};

static bool enqueue_rt_copy(struct lesson *L, void *arg)
{
    const struct copies1 *c = arg;
    return checkRuntime(copy_dir(c->host, L->dev, c->bytes, c->d, L->stream));
}

/* Copies into the other device's context from three buffers (its own, this context's without
 * PORTABLE, this context's PORTABLE one), one of each per round after a warm-up round: GB/s of
 * each, the median of 5 rounds; *spread the widest (max - min) / median. Then the PORTABLE
 * buffer's data, now on the other device, is brought back and checked. */
static bool copies_elsewhere(struct drv *x, void *buf[3], size_t bytes, double rate[3],
                             double *spread, size_t *bad)
{
    double ms[3][5];
    for (int r = -1; r < 5; r++)
        for (int i = 0; i < 3; i++)
            if (!drv_time(x, buf[i], bytes, H2D, &ms[i][r < 0 ? 0 : r]))
                return false;
    for (int i = 0; i < 3; i++) {
        double s;
        rate[i] = gbps(bytes, median_spread(ms[i], 5, &s));
        *spread = s > *spread ? s : *spread;
    }
    memset(buf[0], 0, bytes);
    if (!checkDriver(drv_copy(buf[0], x->d, bytes, D2H, x->s)) ||
        !checkDriver(cuStreamSynchronize(x->s)))
        return false;
    *bad = host_mismatches(buf[0], bytes / 4, 8);
    return true;
}

/* The same buffers in another device's context. PORTABLE asks that a buffer be pinned for every
 * context; under unified addressing every cuMemHostAlloc buffer already is, whatever its flags
 * (cuda.h, "Automatic Mapping of Host Allocated Host Memory"), so a buffer without the flag is
 * timed beside it: only without unified addressing can the flag make the difference. */
static bool portable_elsewhere(struct lesson *L, void *portable, size_t bytes, int other)
{
    const char *what =
        L->prop.unifiedAddressing
            ? "under unified addressing a cuMemHostAlloc buffer of one device's context copies at "
              "pinned speed in another device's context, with CU_MEMHOSTALLOC_PORTABLE or without "
              "it"
            : "a buffer pinned with CU_MEMHOSTALLOC_PORTABLE in one device's context copies at "
              "pinned speed in another device's context";
    CUdevice dev;
    CUcontext ctx = NULL, popped;
    struct gate off = {0}; /* another context: its copies are timed as they are queued */
    struct drv x = {.gate = &off};
    void *buf[3] = {NULL, NULL, portable}; /* its own, this context's without PORTABLE, PORTABLE */
    double rate[3] = {0, 0, 0}, spread = 0;
    size_t bad = 0;
    bool ok = checkDriver(driver_host_alloc(&buf[1], bytes, 0, false));
    ok = ok && checkDriver(cuDeviceGet(&dev, other)) &&
         checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev));
    bool pushed = ok && checkDriver(cuCtxPushCurrent(ctx));
    if (pushed)
        memset(buf[1], 0, bytes);
    ok = pushed && drv_open(&x, bytes) &&
         checkDriver(driver_host_alloc(&buf[0], bytes, 0, false)) &&
         copies_elsewhere(&x, buf, bytes, rate, &spread, &bad);
    if (ok) {
        printf("   device %d's context: H2D from device %ld's PORTABLE buffer %.1f GB/s, from its "
               "buffer without the flag %.1f GB/s, from its own cuMemHostAlloc buffer %.1f GB/s\n",
               other, L->opt.device, rate[2], rate[1], rate[0]);
        claim(bad == 0, "device %d received the PORTABLE buffer's data intact (%zu wrong words)",
              other, bad);
        char why[300];
        double least = L->prop.unifiedAddressing && rate[1] < rate[2] ? rate[1] : rate[2];
        if (timings_comparable(L, bytes, why, sizeof why) && rounds_steady(spread, why, sizeof why))
            claim(least >= 0.9 * rate[0], "%s: %.2fx its own pinned buffer at the least", what,
                  least / rate[0]);
        else
            not_judged(why, "%s", what);
    }
    if (buf[0])
        ok = checkDriver(driver_host_free(buf[0], false)) && ok;
    ok = drv_close(&x) && ok;
    if (pushed)
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    if (buf[1]) /* in its own context, current again */
        ok = checkDriver(driver_host_free(buf[1], false)) && ok;
    return (!ctx || checkDriver(cuDevicePrimaryCtxRelease(dev))) && ok;
}

static void judge_same_rate(const struct lesson *L, size_t bytes, double rate[DRV_KINDS][DIRS],
                            double spread)
{
    double lo = 1e9, hi = 0;
    for (int k = DRV_PORTABLE; k < DRV_KINDS; k++)
        for (int d = 0; d < DIRS; d++) {
            double r = rate[k][d] / rate[RT_PINNED][d];
            lo = r < lo ? r : lo;
            hi = r > hi ? r : hi;
        }
    char why[300];
    if (timings_comparable(L, bytes, why, sizeof why) && rounds_steady(spread, why, sizeof why))
        claim(lo >= 0.9 && hi <= 1.1,
              "the Driver API's copies run at the runtime's rate of this run: "
              "%.2fx to %.2fx of cudaMallocHost + cudaMemcpyAsync",
              lo, hi);
    else
        not_judged(why, "the Driver API's copies run at the runtime's rate of this run");
}

/* The four buffers, timed both ways; the data checked (portable -> device -> registered).
 * Interleaved: each round times one copy of every kind, after a warm-up round, and each kind's
 * rate is its median over 5 rounds. A slow moment of the link or of host memory then falls on
 * every kind of its round alike (an H100 once copied at 30 GB/s instead of 55 for a few copies
 * in a row: timed one kind after another, that made one kind look slower than the others). */
static bool same_copies(struct lesson *L, struct drv *x, void *buf[DRV_KINDS], size_t bytes)
{
    double rate[DRV_KINDS][DIRS], spread = 0; /* the widest spread of one kind's rounds */
    for (int d = 0; d < DIRS; d++) {
        double ms[DRV_KINDS][5], t;
        struct copies1 c = {buf[RT_PINNED], bytes, (enum dir)d};
        for (int r = -1; r < 5; r++) {
            if (!time_events(L, 0, 1, enqueue_rt_copy, &c, &t))
                return false;
            ms[RT_PINNED][r < 0 ? 0 : r] = t;
            for (int k = DRV_PORTABLE; k < DRV_KINDS; k++) {
                if (!drv_time(x, buf[k], bytes, (enum dir)d, &t))
                    return false;
                ms[k][r < 0 ? 0 : r] = t;
            }
        }
        for (int k = 0; k < DRV_KINDS; k++) {
            double s;
            rate[k][d] = gbps(bytes, median_spread(ms[k], 5, &s));
            spread = s > spread ? s : spread;
        }
    }
    fill_host(buf[DRV_PORTABLE], bytes / 4, 8);
    memset(buf[DRV_REGISTERED], 0, bytes);
    if (!checkDriver(drv_copy(buf[DRV_PORTABLE], x->d, bytes, H2D, x->s)) ||
        !checkDriver(drv_copy(buf[DRV_REGISTERED], x->d, bytes, D2H, x->s)) ||
        !checkDriver(cuStreamSynchronize(x->s)))
        return false;
    size_t bad = host_mismatches(buf[DRV_REGISTERED], bytes / 4, 8);
    printf("   %-44s %9s %9s\n", "pinned memory from, copied with", "H2D GB/s", "D2H GB/s");
    for (int k = 0; k < DRV_KINDS; k++)
        printf("   %-44s %9.1f %9.1f\n", drv_name[k], rate[k][H2D], rate[k][D2H]);
    claim(bad == 0,
          "cuMemcpyHtoDAsync then cuMemcpyDtoHAsync delivered the data intact (%zu wrong words)",
          bad);
    judge_same_rate(L, bytes, rate, spread);
    return true;
}

/* What the driver says about the PORTABLE | DEVICEMAP buffer. */
static bool flags_and_mapping(struct lesson *L, void *portable, size_t bytes)
{
    unsigned int flags = 0;
    CUdeviceptr mapped = 0;
    if (!checkDriver(cuMemHostGetFlags(&flags, portable)) ||
        !checkDriver(cuMemHostGetDevicePointer(&mapped, portable, 0)))
        return false;
    printf("   cuMemHostGetFlags: PORTABLE %s, DEVICEMAP %s; cuMemHostGetDevicePointer -> 0x%llx "
           "for %p\n",
           flags & CU_MEMHOSTALLOC_PORTABLE ? "yes" : "no",
           flags & CU_MEMHOSTALLOC_DEVICEMAP ? "yes" : "no", (unsigned long long)mapped, portable);
    unsigned int asked = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP;
    const char *what =
        "the driver reports the flags the buffer was allocated with (PORTABLE, DEVICEMAP)";
    if ((flags & asked) != asked && bytes < WIDE) /* seen on an H200, driver 580, at 4 KiB */
        not_judged("for a buffer under 16 MiB the driver reported other flags than asked (not "
                   "explained here)",
                   "%s", what);
    else
        claim((flags & asked) == asked, "%s", what);
    if (L->prop.unifiedAddressing) {
        claim(mapped == (CUdeviceptr)(uintptr_t)portable,
              "DEVICEMAP under unified addressing: the device pointer is the host pointer (here, "
              "for this buffer, as cuda.h guarantees for cuMemHostAlloc memory that is not "
              "write-combined)");
        printf("   (cuda.h, \"Automatic Mapping of Host Allocated Host Memory\": under unified\n"
               "   addressing every cuMemHostAlloc buffer is reachable from every context,\n"
               "   PORTABLE and DEVICEMAP or not, at its host pointer unless it is WRITECOMBINED;\n"
               "   write-combined and registered memory may have a device address of their own,\n"
               "   which cuMemHostGetDevicePointer gives: \"Exceptions, Disjoint Addressing\";\n"
               "   %s)\n",
               L->platform.registered_ptr == 1
                   ? "here it is their host pointer, as every visible device has\n"
                     "   CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM (step 1)"
               : L->platform.registered_ptr == 0
                   ? "here it is one of their own, as a visible device lacks\n"
                     "   CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM (step 1)"
                   : "which, here, is not known (step 1)");
    }
    return true;
}

/* The other device for portable_elsewhere, or not judged with one GPU. */
static bool on_another_gpu(struct lesson *L, void *portable, size_t bytes)
{
    int count = 0;
    if (!checkDriver(cuDeviceGetCount(&count)))
        return false;
    if (count >= 2)
        return portable_elsewhere(L, portable, bytes, (int)(L->opt.device + 1) % count);
    not_judged("one GPU is visible; this needs two", "%s",
               L->prop.unifiedAddressing
                   ? "under unified addressing a cuMemHostAlloc buffer of one device's context "
                     "copies at pinned speed in another device's context, with "
                     "CU_MEMHOSTALLOC_PORTABLE or without it"
                   : "a buffer pinned with CU_MEMHOSTALLOC_PORTABLE in one device's context "
                     "copies at pinned speed in another device's context");
    return true;
}

bool step_7_driver_api(struct lesson *L)
{
    size_t bytes = side_bytes(L, ZC_MAX);
    printf("\n7. The same copies through the Driver API (%s): cuMemHostAlloc, cuMemHostRegister,\n"
           "   cuMemcpyHtoDAsync / cuMemcpyDtoHAsync in a cuStreamCreate stream, cuEventRecord "
           "timing\n",
           fmt_size(bytes));
    CUdevice dev;
    CUcontext ctx = NULL, popped;
    struct drv x = {.gate = &L->gate};
    void *buf[DRV_KINDS] = {NULL};
    if (!checkDriver(cuDeviceGet(&dev, (int)L->opt.device)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
        return false;
    bool pushed = checkDriver(cuCtxPushCurrent(ctx));
    bool ok =
        pushed && drv_open(&x, bytes) && alloc_kind(PINNED, bytes, &buf[RT_PINNED]) &&
        checkDriver(driver_host_alloc(&buf[DRV_PORTABLE], bytes,
                                      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP,
                                      false)) &&
        checkDriver(driver_host_alloc(&buf[DRV_WC], bytes, CU_MEMHOSTALLOC_WRITECOMBINED, false)) &&
        checkDriver(driver_host_alloc(&buf[DRV_REGISTERED], bytes, 0, true));
    for (int k = 0; ok && k < DRV_KINDS; k++)
        memset(buf[k], 0, bytes);
    ok = ok && flags_and_mapping(L, buf[DRV_PORTABLE], bytes) && same_copies(L, &x, buf, bytes) &&
         on_another_gpu(L, buf[DRV_PORTABLE], bytes);
    printf("   (Bindings sit on either API: PyCUDA, for one, is built on the Driver API, not the "
           "runtime.)\n");
    for (int k = DRV_PORTABLE; k < DRV_KINDS; k++)
        if (buf[k])
            ok = checkDriver(driver_host_free(buf[k], k == DRV_REGISTERED)) && ok;
    if (buf[RT_PINNED])
        ok = free_kind(PINNED, buf[RT_PINNED]) && ok;
    ok = drv_close(&x) && ok;
    if (pushed)
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    return checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
}
