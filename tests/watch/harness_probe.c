/* tests/watch/harness_probe.c - grading/harness/harness_watch.h over the stand-in: makes two
 * streams and an event through the libcuda.so.1 it finds, releases one stream, and reports.
 * usage: harness_probe [N]   (N: the Nth watched call fails)
 *        harness_probe --fail-at N [leak]   a failure run (harness_watch_fail_arg and
 *        harness_watch_judge): everything made is released when a call failed, as a correct
 *        exercise does, except with "leak" */
#include "exercise_harness.h"
#include "harness_watch.h"

#include <stdlib.h>

typedef CUresult (*make_fn)(void **, unsigned);
typedef CUresult (*release_fn)(void *);

/* The failure run: all three made, or (a call failed) all released but with "leak". */
static int failure_run(make_fn create, make_fn event, release_fn destroy, release_fn event_destroy,
                       long n, bool leak)
{
    bool once[DRIVER_WATCH_KINDS] = {[DRIVER_WATCH_EVENT] = true};
    struct harness_watch w = harness_watch_take();
    harness_watch_fail_at(n);
    void *s1 = NULL, *s2 = NULL, *e = NULL;
    bool ok = create(&s1, 0) == CUDA_SUCCESS && create(&s2, 0) == CUDA_SUCCESS &&
              event(&e, 0) == CUDA_SUCCESS;
    if (!ok && !leak) {
        void *made[2] = {s1, s2};
        for (int i = 0; i < 2; i++)
            if (made[i])
                (void)destroy(made[i]);
    }
    bool came = harness_watch_judge();
    harness_report("made", "%s", ok ? "all" : "none");
    if (ok && !came) /* no failure came: released as the exercise would */
        (void)destroy(s1), (void)destroy(s2), (void)event_destroy(e);
    harness_watch_check("fail", &w, once);
    return 0;
}

int main(int argc, char **argv)
{
    long fail = harness_watch_fail_arg(&argc, argv);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        return 1;
    make_fn create, event;
    release_fn destroy, event_destroy;
    *(void **)&event_destroy = dlsym(lib, "cuEventDestroy_v2");
    *(void **)&create = dlsym(lib, "cuStreamCreate");
    *(void **)&event = dlsym(lib, "cuEventCreate");
    *(void **)&destroy = dlsym(lib, "cuStreamDestroy_v2");
    if (!create || !event || !destroy || !event_destroy)
        return 1;
    if (fail)
        return failure_run(create, event, destroy, event_destroy, fail,
                           argc > 1 && strcmp(argv[1], "leak") == 0);
    struct harness_watch w = harness_watch_take();
    if (argc > 1)
        harness_watch_fail_at(strtol(argv[1], NULL, 10));
    void *s1 = NULL, *s2 = NULL, *e = NULL;
    int rc1 = create(&s1, 0), rc2 = create(&s2, 0), rc3 = event(&e, 0);
    harness_report("calls", "%d %d %d failed=%d", rc1, rc2, rc3, harness_watch_failed());
    if (s1)
        destroy(s1);
    bool once[DRIVER_WATCH_KINDS] = {[DRIVER_WATCH_STREAM] = true};
    harness_watch_check("probe", &w, once);
    return 0;
}
