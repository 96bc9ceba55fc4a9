/*
 * 03_pinned_memory/harness/pin_it - the grader's side of exercise pin_it: a buffer of an odd
 * size, starting mid-page, is given to pin() (pin_it.c); the harness asks the runtime whether its first and
 * last bytes are page-locked, times copies from it against a pageable and a cudaMallocHost
 * buffer (its own events, the three taking turns), sends fresh data through it, and asks again
 * after unpin(); the stand-in driver counts what pin() and unpin() made and left (and, with the
 * judge's --fail-at N, makes their Nth driver call fail). It judges nothing
 * (grading/harness/exercise_harness.h).
 */
#include "03_harness.h"
#include "harness_watch.h"
#include "pin_it.h"

/* pin() makes one registration (a second, of part of the buffer, is a second lock of the same
 * pages). Modules and libraries are not judged: the runtime's lazy loading
 * (harness_watch_take_lazy). */
static const bool once[DRIVER_WATCH_KINDS] = {[DRIVER_WATCH_REGISTERED] = true};

/* The judge's --fail-at N: the Nth watched call from pin() on fails, in pin() or in unpin();
 * the one that saw it must answer false, and nothing may be left registered or allocated
 * ("fail_in pin|unpin|none", "fail_came", "resources_fail"). */
static void failure_run(float *data, size_t bytes, long n)
{
    struct harness_watch w = harness_watch_take_lazy();
    harness_watch_fail_at(n);
    bool pinned = pin(data, bytes), in_pin = harness_watch_failed();
    bool unpinned = pinned && !in_pin && unpin(data);
    bool came = harness_watch_judge();
    harness_report("fail_in", "%s", in_pin ? "pin" : came ? "unpin" : "none");
    harness_report("pin", "%s", pinned ? "true" : "false");
    harness_report("unpin", "%s", unpinned ? "true" : "false");
    harness_watch_check("fail", &w, once);
}

/* pin(), the page-lock state, the rates and the data through the buffer, unpin(). */
static bool pin_run(float *data, size_t bytes, size_t n, uint32_t seed)
{
    const char *last = (const char *)data + bytes - 1;
    struct harness_state state; /* pin() and unpin() leave all of it as they found it */
    harness_state_take(&state);
    struct harness_watch w = harness_watch_take_lazy(); /* from pin() to unpin() */
    bool pinned = pin(data, bytes);
    harness_report("pin", "%s", pinned ? "true" : "false");
    harness_state_check("pin", &state);
    harness_report("pinned", "%s %s", host_kind(data), host_kind(last));
    harness_watch_pause(&w); /* the harness's own buffers, streams and events */
    bool ok = compare_rates(data, bytes) && data_case("case0", data, n, seed, 0);
    harness_watch_resume(&w);
    bool unpinned = unpin(data);
    harness_report("unpin", "%s", unpinned ? "true" : "false");
    harness_state_check("unpin", &state);
    harness_report("after", "%s %s", host_kind(data), host_kind(last));
    harness_watch_check("pin_it", &w, once);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long fail_at = harness_watch_fail_arg(&argc, argv);
    harness_start(argc, argv,
                  "Exercise pin_it: pin() and unpin() on a malloc buffer, the page-lock state "
                  "and the copy rate.");
    /* asked before pin(): the size of the buffer you pin comes from it */
    uint32_t seed = harness_seed_now();
    /* The buffer is no whole number of pages and starts mid-page (4 KiB pages): its size is
     * 16 Mi floats and some, the bytes past its last whole page (tail: 8 .. 4092) and its start
     * in its first page (offset) drawn from the seed so that offset + tail > 4096. A
     * registration of whole pages only, rounded down, then misses the page of its last byte,
     * which is read below. The mapping ends at a page that cannot be touched. */
    size_t tail = 2 + seed % 1022;
    size_t n = ((size_t)16 << 20) + 1024 * ((seed / 1022) % 64) + tail, bytes = n * sizeof(float);
    size_t offset = 4100 - 4 * tail + 4 * ((seed / 65536) % (tail - 1));
    size_t span = (offset + bytes + 4095) / 4096 * 4096;
    char *mapping = harness_guarded(span);
    if (!mapping || !requireRuntime(cudaSetDevice(0)))
        return EXIT_CHECK;
    float *data = (float *)(void *)(mapping + offset);
    harness_report("before", "%s %s", host_kind(data), host_kind((const char *)data + bytes - 1));
    bool ok = true;
    if (fail_at)
        failure_run(data, bytes, fail_at);
    else
        ok = pin_run(data, bytes, n, seed);
    if (strcmp(host_kind(data), "pinned") == 0) /* whatever the student left */
        (void)cudaHostUnregister(data);
    return harness_end(seed, ok);
}
