/* tests/watch/harness_probe.c - grading/harness/harness_watch.h over the stand-in: makes two
 * streams and an event through the libcuda.so.1 it finds, releases one stream, and reports.
 * usage: harness_probe [N]   (N: the Nth watched call fails) */
#include "exercise_harness.h"
#include "harness_watch.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        return 1;
    CUresult (*create)(void **, unsigned), (*event)(void **, unsigned), (*destroy)(void *);
    *(void **)&create = dlsym(lib, "cuStreamCreate");
    *(void **)&event = dlsym(lib, "cuEventCreate");
    *(void **)&destroy = dlsym(lib, "cuStreamDestroy_v2");
    if (!create || !event || !destroy)
        return 1;
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
