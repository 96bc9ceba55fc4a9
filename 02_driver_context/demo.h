/* demo.h - what a demo needs besides CUDA, so that its folder builds alone (the README's line).
 * checkRuntime(op) / checkDriver(op): true, or print "file:line: call failed: NAME (number):
 * message" on stderr and yield false; where CUDA cannot run here (the first call says: no driver,
 * the toolkit's stub driver, no device) exit 77. claim() and verdict() as in the lessons. */
#ifndef DEMO_H
#define DEMO_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
static int demo_checks_, demo_failed_;
static inline bool demo_fail_(int e, const char *name, const char *text, const char *call,
                              const char *file, int line)
{
    fflush(stdout);
    if (e != 34) /* the stub driver's own line says no more: "(no name) (34): (no message)" */
        fprintf(stderr, "%s:%d: %s failed: %s (%d): %s\n", file, line, call,
                name ? name : "(no name)", e, text ? text : "(no message)");
    if (e != 34 && e != 35 && e != 100)
        return false;
    fprintf(stderr, "demo: cannot run here: %s.\n",
            e == 34   ? "libcuda.so.1 is the CUDA toolkit's stub library, not a driver"
            : e == 35 ? "no NVIDIA driver, or one older than this CUDA runtime"
                      : "the driver is installed but no CUDA device is visible");
    exit(77);
}
static inline bool demo_runtime_(cudaError_t e, const char *call, const char *file, int line)
{
    return !e || demo_fail_(e, cudaGetErrorName(e), cudaGetErrorString(e), call, file, line);
}
static inline bool demo_driver_(CUresult e, const char *call, const char *file, int line)
{
    const char *name = NULL, *text = NULL;
    return !e || (cuGetErrorName(e, &name), cuGetErrorString(e, &text),
                  demo_fail_(e, name, text, call, file, line));
}
#define checkRuntime(op) demo_runtime_((op), #op, __FILE__, __LINE__)
#define checkDriver(op)  demo_driver_((op), #op, __FILE__, __LINE__)
static inline bool claim(bool ok, const char *text)
{
    printf("  %s %s\n", ok ? "[ok]  " : "[FAIL]", text);
    return demo_checks_++, demo_failed_ += !ok, ok;
}
static inline int verdict(bool ok)
{
    if (demo_failed_)
        printf("RESULT: FAIL - %d of %d checks failed\n", demo_failed_, demo_checks_);
    else if (!ok)
        printf("RESULT: FAIL - a CUDA call failed (see stderr) after %d checks passed\n",
               demo_checks_);
    else
        printf("RESULT: PASS - all %d checks passed\n", demo_checks_);
    return demo_failed_ || !ok;
}
#endif
