/*
 * 03_pinned_memory/harness/pin_it - the grader's side of exercise pin_it: a malloc buffer of an
 * odd size is given to pin() (pin_it.c); the harness asks the runtime whether its first and
 * last bytes are page-locked, times copies from it against a pageable and a cudaMallocHost
 * buffer (its own events, the three taking turns), sends fresh data through it, and asks again
 * after unpin(). It judges nothing (common/exercise_harness.h).
 */
#include "03_harness.h"
#include "pin_it.h"

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise pin_it: pin() and unpin() on a malloc buffer, the page-lock state "
                  "and the copy rate.");
    /* asked before pin(): the size of the buffer you pin comes from it */
    uint32_t seed = harness_seed_now();
    size_t n = ((size_t)16 << 20) + seed % 65536, bytes = n * sizeof(float);
    float *data = malloc(bytes);
    if (!data || !requireRuntime(cudaSetDevice(0))) {
        free(data);
        return EXIT_CHECK;
    }
    memset(data, 0, bytes);
    const char *last = (const char *)data + bytes - 1;
    harness_report("before", "%s %s", host_kind(data), host_kind(last));
    bool pinned = pin(data, bytes);
    harness_report("pin", "%s", pinned ? "true" : "false");
    harness_report("pinned", "%s %s", host_kind(data), host_kind(last));
    bool ok = compare_rates(data, bytes) && data_case("case0", data, n, seed, 0);
    bool unpinned = unpin(data);
    harness_report("unpin", "%s", unpinned ? "true" : "false");
    harness_report("after", "%s %s", host_kind(data), host_kind(last));
    if (strcmp(host_kind(data), "pinned") == 0) /* before free(), whatever the student left */
        (void)cudaHostUnregister(data);
    free(data);
    return harness_end(seed, ok);
}
