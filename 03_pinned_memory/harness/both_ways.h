/* Exercise both_ways: what your both_ways.c defines (the harness calls it). */
#ifndef EX_BOTH_WAYS_H
#define EX_BOTH_WAYS_H
#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "check.h"

struct both_ways {
    const void *up;      /* pinned host memory: copy it to dev_in */
    void *dev_in;        /* bytes on the device */
    const void *dev_out; /* bytes on the device: copy it to down */
    void *down;          /* pinned host memory */
    size_t bytes;
    cudaStream_t s1; /* a stream the harness made for you */
    void *mine[4];   /* yours: whatever both_ways_begin makes (a stream, events...) */
};

/* Make what you need for the copies (once, before any both_ways_issue). */
bool both_ways_begin(struct both_ways *w);
/* Issue the upload (up -> dev_in) and the download (dev_out -> down), then return without
 * waiting for them: the harness times from the call until the device is idle. */
bool both_ways_issue(struct both_ways *w);
/* Destroy what both_ways_begin made. */
bool both_ways_end(struct both_ways *w);
#endif
