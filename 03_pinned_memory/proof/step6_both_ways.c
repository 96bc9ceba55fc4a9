/* 03_pinned_memory/proof/step6_both_ways.c - step 6: a host-to-device and a device-to-host copy at the
 * same time, in two streams, against one direction at a time. */
#include <string.h>

#include "lesson.h"

struct pair {
    uint32_t *up, *down; /* pinned: up goes to L->dev, L->dev2 comes down */
    size_t bytes;
};

static bool enqueue_up(struct lesson *L, void *arg)
{
    const struct pair *p = arg;
    return checkRuntime(
        cudaMemcpyAsync(L->dev, p->up, p->bytes, cudaMemcpyHostToDevice, L->stream));
}

static bool enqueue_down(struct lesson *L, void *arg)
{
    const struct pair *p = arg;
    return checkRuntime(
        cudaMemcpyAsync(p->down, L->dev2, p->bytes, cudaMemcpyDeviceToHost, L->stream));
}

/* core.c's copy_both_ways: stream2 begins at `start` (just recorded in L->stream), and
 * L->stream waits for stop2, so that `stop` marks the end of both copies. */
static bool enqueue_both(struct lesson *L, void *arg)
{
    const struct pair *p = arg;
    return copy_both_ways(p->up, L->dev, p->down, L->dev2, p->bytes, L->stream, L->stream2,
                          L->start, L->stop2);
}

/* What this run lets us expect: with two or more asynchronous engines and copies that return
 * at once, up to 2x one direction; with one engine, or with calls that wait for their copy
 * (step 4 saw it), the two take turns. */
static void judge_overlap(const struct lesson *L, size_t bytes, double ratio, double spread)
{
    const char *what = "the two directions run side by side";
    char why[300];
    int engines = L->prop.asyncEngineCount;
    if (!timings_comparable(L, bytes, why, sizeof why)) {
        not_judged(why, "%s (%.2fx one direction)", what, ratio);
    } else if (spread > 0.15) { /* an idle H100: 1-2% */
        snprintf(why, sizeof why,
                 "the repetitions spread %.0f%% (more than 15%%): the link or the "
                 "GPU was not this program's alone",
                 100 * spread);
        not_judged(why, "%s (%.2fx one direction)", what, ratio);
    } else if (L->copies_block) {
        claim(ratio <= 1.15,
              "each cudaMemcpyAsync waited for its copy (step 4%s), so the two "
              "directions took turns: %.2fx one direction",
              L->launch_blocking ? ", CUDA_LAUNCH_BLOCKING=1" : "", ratio);
    } else if (engines < 2) {
        claim(ratio <= 1.15,
              "with asyncEngineCount %d this GPU runs one copy at a time, whatever its "
              "direction: the two copies took turns (%.2fx one direction), although "
              "PCIe itself carries both directions at once",
              engines, ratio);
    } else if (L->one_connection && ratio < 1.3) {
        not_judged("CUDA_DEVICE_MAX_CONNECTIONS=1 or CUDA_DEVICE_MAX_COPY_CONNECTIONS=1: both "
                   "streams' copies share one hardware queue",
                   "%s (%.2fx one direction)", what, ratio);
    } else {
        claim(ratio >= 1.3, "with asyncEngineCount %d %s: %.2fx one direction (up to 2x)", engines,
              what, ratio);
    }
}

bool step_6_both_ways(struct lesson *L)
{
    size_t bytes = side_bytes(L, BOTH_MAX), words = bytes / 4;
    printf("\n6. Both directions at once: pinned buffers, H2D in one stream, D2H in another (%s "
           "each),\n   timed round by round with each direction alone\n",
           fmt_size(bytes));
    struct pair p = {NULL, NULL, bytes};
    bool ok = true;
    double one[DIRS], both, ms[3], spread[3];
    /* one direction, the other, both at once: round by round (one of each per round) */
    const struct way ways[3] = {{enqueue_up, &p}, {enqueue_down, &p}, {enqueue_both, &p}};
    if (!ALLOC(cudaMallocHost((void **)&p.up, bytes), "cudaMallocHost", bytes) ||
        !ALLOC(cudaMallocHost((void **)&p.down, bytes), "cudaMallocHost", bytes)) {
        ok = false;
        goto cleanup;
    }
    fill_host(p.up, words, 6);
    memset(p.down, 0, bytes);
    if (!checkRuntime(launch_fill_pattern(L->dev2, words, 7, L->stream)) ||
        !checkRuntime(cudaStreamSynchronize(L->stream)) ||
        !time_rounds(L, 1, 3, ways, IN_TURN, ms, spread)) {
        ok = false;
        goto cleanup;
    }
    one[H2D] = gbps(bytes, ms[H2D]);
    one[D2H] = gbps(bytes, ms[D2H]);
    both = gbps(2 * bytes, ms[2]);
    unsigned long long bad_dev = 0;
    if (!device_mismatches(L, L->dev, words, 6, &bad_dev)) {
        ok = false;
        goto cleanup;
    }
    size_t bad = (size_t)bad_dev + host_mismatches(p.down, words, 7);
    double best_one = one[H2D] > one[D2H] ? one[H2D] : one[D2H];
    printf("   one direction at a time: H2D %.1f GB/s, D2H %.1f GB/s\n", one[H2D], one[D2H]);
    printf("   both at once: %.1f GB/s in total, %.2fx the faster direction alone\n", both,
           both / best_one);
    claim(bad == 0, "both copies delivered their data intact (%zu wrong words)", bad);
    double most = spread[0] > spread[1] ? spread[0] : spread[1];
    judge_overlap(L, bytes, both / best_one, most > spread[2] ? most : spread[2]);
cleanup:
    if (p.up)
        ok = checkRuntime(cudaFreeHost(p.up)) && ok;
    if (p.down)
        ok = checkRuntime(cudaFreeHost(p.down)) && ok;
    return ok;
}
