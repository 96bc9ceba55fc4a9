/*
 * 04_streams_overlap/harness/observe.h - what the harness sees pipeline.c do (the harness's
 * own header, never the student's): the calls of an exercise linked with --wrap
 * (harness/NAME.wrap) are counted and checked in harness/observe.c while `counting` is set,
 * that is while the harness is inside one of pipeline.c's functions.
 */
#ifndef LESSON04_OBSERVE_H
#define LESSON04_OBSERVE_H

struct observed {
    int counting;       /* 1 while pipeline.c's code runs */
    int driver_copies;  /* cuMemcpyHtoDAsync / cuMemcpyDtoHAsync / cuMemcpyAsync */
    int runtime_copies; /* cudaMemcpyAsync */
    int legacy_memsets; /* cudaMemsetAsync in the legacy default stream */
    int kinds_checked;  /* runtime copies whose cudaMemcpyKind was checked */
    int kinds_wrong;    /* ... that named a kind their pointers do not have */
    int streams_made;   /* streams created (runtime and Driver API) */
};

extern struct observed harness_observed;

#endif
