/* grading/harness/harness_watch.h - a harness's view of the stand-in driver
 * (grading/harness/driver_watch, beside the program in a WATCH_DRIVER=1 build): what the
 * student's call made and left alive by kind, whatever API made it, and a call made to fail.
 * Include after exercise_harness.h (its harness_report).
 *
 *   struct harness_watch w = harness_watch_take();   before the student's call
 *   ... the call ...
 *   harness_watch_check("NAME", &w, once);   "resources_NAME kept", or "resources_NAME left:
 *        stream 1 event 2" (alive now, not before), or "... made twice: pinned 2" (made more
 *        than once of a kind once[] flags), or "resources_NAME not watched" (no stand-in)
 *   harness_watch_fail_at(N): the Nth watched call from now fails; harness_watch_failed() says
 *        whether it came (a run past the student's last call gets none: the N to stop at)
 *   harness_watch_check_kept(...,  kept): as check, kept[k] of kind k may stay alive (what the
 *        call hands back: a buffer, n streams)
 *   harness_watch_pause(&w) / harness_watch_resume(&w): the harness's own work inside a window
 *   harness_watch_take_lazy(): as take, blind to modules and libraries: the CUDA runtime loads
 *        its own (lazy loading, CUDA_MODULE_LOADING=LAZY, the default) at a program's first
 *        launch, and the first launch may fall in the window of a runtime exercise
 *
 * A failure run (the judge's --fail-at N, harness_watch_fail_arg): the harness arms the failure
 * just before the student's call (harness_watch_fail_at), and right after it calls
 * harness_watch_judge, which disarms it and reports "fail_came yes|no" (whether the Nth call
 * came within the student's call); where it did not come, the harness releases what the call
 * made, through the student's own release; then harness_watch_check("fail", ...) over the whole
 * window ("resources_fail": a failure must leave nothing behind), the student's answer, the end. */
#ifndef LESSON_HARNESS_WATCH_H
#define LESSON_HARNESS_WATCH_H

#include "driver_watch/driver_watch.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct harness_watch {
    bool on; /* the stand-in is the driver this program loaded */
    long live[DRIVER_WATCH_KINDS], made[DRIVER_WATCH_KINDS];
    bool blind[DRIVER_WATCH_KINDS];  /* kinds not judged (harness_watch_take_lazy) */
    long paused[DRIVER_WATCH_KINDS]; /* made when harness_watch_pause was called */
};

struct harness_watch_api {
    long (*live)(int, void *);
    long (*made)(int);
    void (*fail_at)(long);
    int (*failed)(void);
    const char *(*name)(int);
};

/* The stand-in's functions, or all NULL where the program's libcuda.so.1 is another. */
static inline const struct harness_watch_api *harness_watch_api(void)
{
    static struct harness_watch_api api;
    static bool looked;
    if (!looked) {
        looked = true;
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (lib) {
            *(void **)&api.live = dlsym(lib, "driver_watch_live");
            *(void **)&api.made = dlsym(lib, "driver_watch_made");
            *(void **)&api.fail_at = dlsym(lib, "driver_watch_fail_at");
            *(void **)&api.failed = dlsym(lib, "driver_watch_failed");
            *(void **)&api.name = dlsym(lib, "driver_watch_kind_name");
            dlclose(lib); /* NOLOAD took a reference of its own; the driver stays */
        }
        if (!api.live || !api.made || !api.fail_at || !api.failed || !api.name)
            memset(&api, 0, sizeof api);
    }
    return api.live ? &api : NULL;
}

static inline struct harness_watch harness_watch_take(void)
{
    struct harness_watch w = {0};
    const struct harness_watch_api *a = harness_watch_api();
    w.on = a != NULL;
    for (int k = 0; a && k < DRIVER_WATCH_KINDS; k++) {
        w.live[k] = a->live(k, NULL);
        w.made[k] = a->made(k);
    }
    return w;
}

static inline struct harness_watch harness_watch_take_lazy(void)
{
    struct harness_watch w = harness_watch_take();
    w.blind[DRIVER_WATCH_MODULE] = w.blind[DRIVER_WATCH_LIBRARY] = true;
    return w;
}

/* Between pause and resume, the harness's own work inside a window: what it makes there is not
 * counted as made by the student (what it leaves alive still is: it releases all of it). */
static inline void harness_watch_pause(struct harness_watch *w)
{
    const struct harness_watch_api *a = harness_watch_api();
    for (int k = 0; a && k < DRIVER_WATCH_KINDS; k++)
        w->paused[k] = a->made(k);
}
static inline void harness_watch_resume(struct harness_watch *w)
{
    const struct harness_watch_api *a = harness_watch_api();
    for (int k = 0; a && k < DRIVER_WATCH_KINDS; k++)
        w->made[k] += a->made(k) - w->paused[k];
}

/* As harness_watch_check, for a call that hands resources back: kept[k] of kind k may be left
 * alive (NULL: none), more is "left". */
static inline bool harness_watch_check_kept(const char *name, const struct harness_watch *before,
                                            const bool once[DRIVER_WATCH_KINDS],
                                            const long kept[DRIVER_WATCH_KINDS]);

/* once[k]: the exercise makes at most one of kind k in the call (NULL: no such kind).
 * True when nothing was left and nothing made twice. */
static inline bool harness_watch_check(const char *name, const struct harness_watch *before,
                                       const bool once[DRIVER_WATCH_KINDS])
{
    return harness_watch_check_kept(name, before, once, NULL);
}

static inline bool harness_watch_check_kept(const char *name, const struct harness_watch *before,
                                            const bool once[DRIVER_WATCH_KINDS],
                                            const long kept[DRIVER_WATCH_KINDS])
{
    char key[64], left[512] = "", twice[512] = "";
    snprintf(key, sizeof key, "resources_%s", name);
    struct harness_watch now = harness_watch_take();
    if (!before->on || !now.on) {
        harness_report(key, "not watched");
        return true;
    }
    const struct harness_watch_api *a = harness_watch_api();
    for (int k = 0; k < DRIVER_WATCH_KINDS; k++) {
        if (before->blind[k])
            continue;
        long more = now.live[k] - before->live[k] - (kept ? kept[k] : 0);
        long made = now.made[k] - before->made[k];
        size_t n = strlen(left), m = strlen(twice);
        if (more > 0)
            snprintf(left + n, sizeof left - n, " %s %ld", a->name(k), more);
        if (once && once[k] && made > 1)
            snprintf(twice + m, sizeof twice - m, " %s %ld", a->name(k), made);
    }
    if (!left[0] && !twice[0])
        harness_report(key, "kept");
    else
        harness_report(key, "%s%s%s%s", left[0] ? "left:" : "", left,
                       twice[0] ? " made twice:" : "", twice);
    return !left[0] && !twice[0];
}

static inline void harness_watch_fail_at(long n)
{
    const struct harness_watch_api *a = harness_watch_api();
    if (a)
        a->fail_at(n);
}

static inline bool harness_watch_failed(void)
{
    const struct harness_watch_api *a = harness_watch_api();
    return a && a->failed();
}

/* The judge's --fail-at N (1 .. 1000), taken out of argv (*argc and argv shortened: the rest is
 * the harness's command line as before); 0 where it is not given. A bad N exits 2. */
static inline long harness_watch_fail_arg(int *argc, char **argv)
{
    long n = 0;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--fail-at") != 0)
            continue;
        char *end = NULL;
        n = i + 1 < *argc ? strtol(argv[i + 1], &end, 10) : 0;
        if (!end || end == argv[i + 1] || *end || n < 1 || n > 1000) {
            fprintf(stderr, "--fail-at must be followed by an integer from 1 to 1000\n");
            exit(2); /* EXIT_USAGE */
        }
        for (int j = i; j + 2 <= *argc; j++)
            argv[j] = argv[j + 2];
        *argc -= 2;
        break;
    }
    return n;
}

/* Right after the student's call in a failure run (see the top): disarms the failure and
 * reports "fail_came yes|no". True when the failure came. */
static inline bool harness_watch_judge(void)
{
    bool came = harness_watch_failed();
    harness_watch_fail_at(0);
    harness_report("fail_came", "%s", came ? "yes" : "no");
    return came;
}

#endif
