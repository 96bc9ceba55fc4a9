/*
 * Exercise 2 - both_ways: copy to the device and back at the same time.
 *
 * This file is yours (the only one graded). The harness (harness/both_ways/) has an upload and
 * a download of the same size from pinned memory; it calls both_ways_begin() once,
 * both_ways_issue() in several rounds, and both_ways_end() at the end. As given, both copies go
 * into ONE stream, w->s1, so the second waits for the first and the pair takes as long as the
 * two directions one after the other. A PCIe link carries both directions at once, and a GPU
 * with two or more copy engines (asyncEngineCount) runs the two copies side by side: the pair
 * then takes less time than one after the other, though not always half (step 6 of the lesson).
 * The harness times, from its own clock, each direction alone, both in two streams of its own
 * (what the copy engines allow on this card), and your both_ways_issue(), in turns.
 *   FIXME 1: in both_ways_begin(), create a second stream (keep it in w->mine[0]);
 *   FIXME 2: in both_ways_issue(), issue the device-to-host copy there, so that the two copies
 *            overlap;
 *   FIXME 3: in both_ways_end(), destroy what you created. Check each call.
 * Then your pair gains at least 3/4 of what the harness's own two streams gain, with the data
 * intact, and both_ways_issue() returns without waiting for its copies.
 * Grade it: make check   (from 03_pinned_memory/; README.md beside this file)
 */
#include "both_ways.h"

bool both_ways_begin(struct both_ways *w)
{
    (void)w;
    /* FIXME 1: a second stream, in w->mine[0]. */
    return true;
}

bool both_ways_issue(struct both_ways *w)
{
    /* FIXME 2: the device-to-host copy goes into your second stream, not w->s1. */
    return checkRuntime(
               cudaMemcpyAsync(w->dev_in, w->up, w->bytes, cudaMemcpyHostToDevice, w->s1)) &&
           checkRuntime(
               cudaMemcpyAsync(w->down, w->dev_out, w->bytes, cudaMemcpyDeviceToHost, w->s1));
}

bool both_ways_end(struct both_ways *w)
{
    (void)w;
    /* FIXME 3: destroy what both_ways_begin made. */
    return true;
}
