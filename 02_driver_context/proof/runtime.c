/* 02_driver_context/proof/runtime.c - step 5, the runtime and the driver on one thread, and step 6,
 * contexts are per thread. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

/* 5a. The primary context through the Driver API, before any runtime call needed it. */
static bool step_5a_primary_by_the_driver(struct lesson *L)
{
    struct primary_life s = {.active_before = -1, .active_retained = -1, .active_released = -1};
    printf(
        "   a) the primary context through the Driver API (no runtime call has needed it yet)\n");
    TRY(primary_retain_release(L->dev, &s));
    primary_ctx = s.primary; /* named "primary" while it lives */
    printf("   cuDevicePrimaryCtxGetState: active = %d; cuDevicePrimaryCtxRetain -> primary = %p, "
           "active = %d;\n   cuDevicePrimaryCtxRelease -> active = %d; current all along: %s\n",
           s.active_before, (void *)s.primary, s.active_retained, s.active_released,
           name_of(s.current));
    claim(s.active_before == 0, "user contexts do not start the primary context: it was inactive");
    claim(s.active_retained == 1 && s.primary != ctx_a && s.primary != ctx_b,
          "cuDevicePrimaryCtxRetain started it: a third context, neither ctxA nor ctxB");
    claim(s.current == ctx_a, "retaining the primary context did not make it current");
    claim(s.active_released == 0, "releasing the only reference ended it (inactive again)");
    primary_ctx = NULL; /* it is gone; the runtime will start a new one below */
    return true;
}

/* 5b. The runtime while ctxA is current: it works in ctxA. */
static bool step_5b_runtime_in_a_user_context(struct lesson *L)
{
    bool ok = true;
    unsigned int flags = 0;
    int rt_device = -1, active_after_rt = -1;
    CUcontext own_rt = NULL;
    printf("   b) runtime calls while ctxA is current\n");
    TRY(checkRuntime(cudaGetDevice(&rt_device)));
    fill(L->host_in, 3);
    memset(L->host_out, 0, BYTES);
    TRY(runtime_round_trip(&L->rt_in_a, &own_rt, L->host_in, L->host_out, WORDS));
    int wrong_rt = wrong_words(L->host_out, 3, 1);
    CUcontext now = current(&ok);
    TRY(checkDriver(cuDevicePrimaryCtxGetState(L->dev, &flags, &active_after_rt)) && ok);
    printf(
        "   cudaGetDevice -> %d; cudaMalloc 1 MiB at %p -> owner %s; add_one<<<>>> ran: %d wrong\n",
        rt_device, L->rt_in_a, name_of(own_rt), wrong_rt);
    printf("   current context afterwards: %s; primary context active = %d\n", name_of(now),
           active_after_rt);
    printf(
        "   (a common Driver API example passes void *args[] = { &d_data } to a kernel of four\n"
        "   parameters, a, b, c and n: cuLaunchKernel takes one pointer per parameter from that\n"
        "   array, so it would read three from past its end; <<<>>> is checked by the compiler)\n");
    claim(own_rt == ctx_a, "cudaMalloc allocated in ctxA, the current user context");
    claim(wrong_rt == 0 && rt_device == L->device,
          "the runtime's kernel ran in ctxA and its result is right");
    claim(now == ctx_a && active_after_rt == 0,
          "the runtime used ctxA as it found it: ctxA still current, no primary context started");
    return cuda_free_in(ctx_a, &L->rt_in_a);
}

/* 5c. Pop ctxA: with no context current, the runtime turns to the primary context. */
static bool step_5c_back_to_the_primary(struct lesson *L)
{
    bool ok = true;
    CUcontext popped = NULL, own_primary = NULL;
    struct runtime_primary s = {.active_set = -1, .active_ours = -1, .active_back = -1};
    printf("   c) pop ctxA: the runtime goes back to the device's primary context\n");
    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    TRY(runtime_primary((int)L->device, L->dev, &s));
    L->runtime_ctx = primary_ctx = s.current;
    TRY(runtime_alloc_owner(&L->rt_in_primary, BYTES, &own_primary));
    stack[0] = s.current;
    depth = 1;
    show_stack("after cudaSetDevice:", &ok);
    printf(
        "   cudaSetDevice(%ld) took %.1f ms; primary active = %d; cudaMalloc at %p -> owner %s\n",
        L->device, s.set_ms, s.active_set, L->rt_in_primary, name_of(own_primary));
    printf("   cuDevicePrimaryCtxRetain -> %s (%p); after our cuDevicePrimaryCtxRelease: active = "
           "%d\n",
           name_of(s.retained), (void *)s.retained, s.active_back);
    claim(s.current && s.current != ctx_a && s.current != ctx_b && s.active_set == 1,
          "with no context current, cudaSetDevice started the primary context and made it current");
    claim(own_primary == s.current, "cudaMalloc now allocates in the primary context");
    claim(s.retained == s.current && s.active_ours == 1,
          "cuDevicePrimaryCtxRetain hands the Driver API the very context the runtime uses");
    claim(
        s.active_back == 1,
        "releasing our reference left it active: the runtime holds its own (unlike cuCtxDestroy)");
    return cuda_free_in(s.current, &L->rt_in_primary) && ok;
}

/* 5d. cudaSetDevice makes the primary context current with cuCtxSetCurrent: it replaces the
 * top of the stack, even when a user context was pushed there. */
static bool step_5d_set_device_replaces_the_top(struct lesson *L)
{
    bool ok = true;
    struct replaced_top s = {0};
    printf("   d) cudaSetDevice with user contexts on the stack: it replaces the top\n");
    TRY(set_device_over_stack(ctx_a, ctx_b, (int)L->device, &s));
    stack[depth++] = ctx_a;
    stack[depth++] = ctx_b;
    show_stack_as("after pushing ctxA and ctxB:", s.after_push);
    stack[depth - 1] = s.after_set; /* as documented: cudaSetDevice calls cuCtxSetCurrent */
    show_stack_as("after cudaSetDevice:", s.after_set);
    depth--;
    show_stack_as("after cuCtxPopCurrent:", s.after_pop);
    printf("   cuCtxPopCurrent returned %s\n", name_of(s.popped));
    /* The pop tests the model: replaced means ctxA is below; pushed would have left ctxB. */
    claim(s.after_set == L->runtime_ctx,
          "cudaSetDevice(%ld) made the primary context current although ctxB was on top",
          L->device);
    claim(s.after_set == L->runtime_ctx && s.popped == L->runtime_ctx && s.after_pop == ctx_a,
          "it replaced ctxB: the pop returned the primary and exposed ctxA, not ctxB");
    printf("   so a library that pushes its own context and then calls cudaSetDevice works in the\n"
           "   primary context from there on, and its pop at exit takes the primary off, not its "
           "own\n");
    /* Back to [primary] for step 6: pop until the primary is on top (ctxA, in this model). */
    CUcontext popped = NULL;
    for (int i = 0; i < 4 && current(&ok) != L->runtime_ctx && ok; i++)
        TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth = 1;
    TRY(current(&ok) == L->runtime_ctx && ok);
    return ok;
}

bool step_5_runtime_and_driver_on_one_thread(struct lesson *L)
{
    printf("\n5. The runtime and the driver on one thread\n");
    return step_5a_primary_by_the_driver(L) && step_5b_runtime_in_a_user_context(L) &&
           step_5c_back_to_the_primary(L) && step_5d_set_device_replaces_the_top(L);
}

/* ---- step 6: a worker thread ---------------------------------------------------------- */

struct worker {
    CUcontext give; /* the context the thread binds */
    CUresult at_start_r;
    CUcontext at_start;     /* current context when the thread starts */
    CUresult unbound_alloc; /* cuMemAlloc before binding a context */
    CUcontext after_set;    /* current after cuCtxSetCurrent(give) */
    CUcontext owner;        /* owner of the allocation made after binding */
    CUcontext after_unset;  /* current after cuCtxSetCurrent(NULL) */
    bool ok;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    CUdeviceptr p = 0;
    w->ok = true;
    w->at_start_r = cuCtxGetCurrent(&w->at_start);
    if (!checkDriver(w->at_start_r)) {
        w->ok = false;
        return NULL;
    }
    w->unbound_alloc = cuMemAlloc(&p, BYTES); /* expected to fail: no context here */
    if (w->unbound_alloc == CUDA_SUCCESS)
        checkDriver(cuMemFree(p));
    p = 0;
    if (!checkDriver(cuCtxSetCurrent(w->give))) {
        w->ok = false;
        return NULL;
    }
    w->after_set = current(&w->ok);
    if (checkDriver(cuMemAlloc(&p, BYTES))) {
        w->owner = owner_of(p, &w->ok);
        w->ok = free_in(w->give, &p) && w->ok;
    } else {
        w->ok = false;
    }
    w->ok = checkDriver(cuCtxSetCurrent(NULL)) && w->ok;
    w->after_unset = current(&w->ok);
    return NULL;
}

bool step_6_contexts_are_per_thread(struct lesson *L)
{
    bool ok = true;
    CUcontext now = NULL;
    printf("\n6. Contexts are per thread\n");
    struct worker w = {.give = ctx_b};
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker_main, &w) != 0) {
        fprintf(stderr, "%s: pthread_create failed\n", lesson_prog);
        return false;
    }
    pthread_join(thread, NULL);
    TRY(w.ok);
    now = current(&ok);
    TRY(ok);
    printf("   worker at start:              current = %s (main thread's: %s)\n",
           name_of(w.at_start), name_of(now));
    printf("   worker cuMemAlloc, unbound:    %s (%d)\n", error_name(w.unbound_alloc),
           (int)w.unbound_alloc);
    printf("   worker cuCtxSetCurrent(ctxB): current = %s; cuMemAlloc there -> owner %s\n",
           name_of(w.after_set), name_of(w.owner));
    printf("   worker cuCtxSetCurrent(NULL): current = %s\n", name_of(w.after_unset));
    claim(w.at_start == NULL,
          "a new thread starts with no current context, whatever its parent has");
    claim(w.unbound_alloc == CUDA_ERROR_INVALID_CONTEXT,
          "without one, cuMemAlloc fails with CUDA_ERROR_INVALID_CONTEXT");
    claim(w.after_set == ctx_b && w.owner == ctx_b,
          "cuCtxSetCurrent(ctxB) bound ctxB in the worker, and its allocation is ctxB's");
    claim(now == L->runtime_ctx,
          "the main thread's current context did not change (still the primary)");
    return ok;
}
