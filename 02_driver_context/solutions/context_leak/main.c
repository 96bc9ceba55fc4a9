/*
 * Reference solution of exercise 3 - context_leak.
 *
 * do_task() creates a context for one piece of work, allocates and fills a buffer, reads it
 * back, frees the buffer ... and returns. main() runs four tasks from an "observer" context
 * and compares the free device memory before and after. As given, every task leaves its
 * context behind: the device memory each one took stays taken, and the context stack of
 * the thread grows by one entry per task.
 * TODO: at the end of do_task, end the context's life (popping it is not enough: a popped
 * context still exists and still holds its memory). Check the call.
 * Grade it: make check   (from 02_driver_context/)
 */
#include <stdio.h>

#include <cuda.h>

#include "check.h"

enum { TASKS = 4, WORDS = 256 * 1024 };

static bool create(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

/* One piece of work in a context of its own. True when every call succeeded and the data
 * read back is right. */
static bool do_task(CUdevice dev, unsigned int value)
{
    CUcontext ctx = NULL;
    CUdeviceptr buf = 0;
    unsigned int first = 0;
    if (!create(&ctx, dev)) /* pushed: current from here on */
        return false;
    bool ok = checkDriver(cuMemAlloc(&buf, WORDS * sizeof(unsigned int))) &&
              checkDriver(cuMemsetD32(buf, value, WORDS)) &&
              checkDriver(cuMemcpyDtoH(&first, buf, sizeof first));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;

    ok = checkDriver(cuCtxDestroy(ctx)) && ok; /* frees its memory and pops it */

    return ok && first == value;
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    CUdevice dev;
    CUcontext observer = NULL, now = NULL;
    size_t before = 0, after = 0, total = 0;
    int done = 0;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) || !create(&observer, dev))
        return EXIT_CHECK;
    bool ok = checkDriver(cuMemGetInfo(&before, &total));
    for (unsigned int i = 0; ok && i < TASKS; i++)
        done += do_task(dev, 100 + i);
    ok = ok && checkDriver(cuCtxGetCurrent(&now)) && checkDriver(cuMemGetInfo(&after, &total));
    if (ok) {
        double mib = 1024.0 * 1024.0, lost = ((double)before - (double)after) / mib;
        printf("tasks done right: %d of %d\n", done, TASKS);
        printf("free device memory: %.1f MiB before, %.1f MiB after the tasks\n", before / mib,
               after / mib);
        printf("memory given back: %s\n", lost <= 2.0 ? "yes" : "no");
        printf("current context at the end: %s\n", now == observer ? "observer" : "another context");
    }
    ok = checkDriver(cuCtxDestroy(observer)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
