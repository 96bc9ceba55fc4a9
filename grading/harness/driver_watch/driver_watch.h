/* driver_watch.h - what the stand-in libcuda.so.1 (driver_watch.c) exports to a harness.
 * A harness finds these with dlsym on dlopen("libcuda.so.1", RTLD_NOLOAD): a program run
 * without the stand-in finds none and counts nothing. */
#ifndef DRIVER_WATCH_H
#define DRIVER_WATCH_H

enum driver_watch_kind {
    DRIVER_WATCH_STREAM,
    DRIVER_WATCH_EVENT,
    DRIVER_WATCH_MODULE,
    DRIVER_WATCH_LIBRARY,
    DRIVER_WATCH_REGISTERED, /* cuMemHostRegister */
    DRIVER_WATCH_PINNED,     /* cuMemHostAlloc, cuMemAllocHost */
    DRIVER_WATCH_DEVICE,     /* cuMemAlloc, cuMemAllocManaged */
    DRIVER_WATCH_KINDS
};

/* the kind's name: "stream", "event", ... (NULL past the last) */
const char *driver_watch_kind_name(int kind);
/* resources of the kind alive now: in every context (ctx NULL) or made while ctx was current */
long driver_watch_live(int kind, void *ctx);
/* resources of the kind made so far (those that failed not counted) */
long driver_watch_made(int kind);
/* watched calls (makes and releases) so far */
long driver_watch_calls(void);
/* the nth watched call from now on fails (n >= 1); 0: none does. A make that fails makes
 * nothing; a release that fails releases all the same (so that a program that reports it
 * leaves nothing behind). Also DRIVER_WATCH_FAIL=N in the environment. */
void driver_watch_fail_at(long n);
/* whether the failure asked for has happened */
int driver_watch_failed(void);

#endif
