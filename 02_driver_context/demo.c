/*
 * 02_driver_context/demo.c - the lesson in one short program: cuInit, a context of our own next
 * to the runtime's primary context, the context stack, and cudaMalloc landing in whichever
 * context is current. make demo builds it (build/demo); README.md ("The code") shows the one
 * nvcc line that builds it by hand from this folder.
 * Exit 0 when everything held, 1 when a call or a check failed, 77 when no GPU can be used.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core.h"

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    enum { N = 1 << 20 };
    size_t bytes = N * sizeof(unsigned int);
    struct device_info d = {0};
    if (!requireDriver(cuInit(0)) || !describe_device(0, &d)) /* no context needed yet */
        return EXIT_CHECK;
    printf("cuInit, then device 0: %s\n", d.name);

    /* A context of our own (pushed: current), popped; then the runtime's primary context. */
    CUcontext own = NULL, popped = NULL, owner_own = NULL, owner_primary = NULL;
    struct runtime_primary rp = {0};
    void *in_own = NULL, *in_primary = NULL;
    unsigned int *host = malloc(bytes), *back = calloc(N, sizeof *back);
    bool ok = host && back && checkDriver(create_context(&own, d.dev)) &&
              checkDriver(cuCtxPopCurrent(&popped)) && runtime_primary(0, d.dev, &rp);
    if (!ok)
        goto done;
    printf("cuCtxCreate -> %p; cudaSetDevice(0) -> primary %p (cuDevicePrimaryCtxRetain: %p)\n",
           (void *)own, (void *)rp.current, (void *)rp.retained);
    bool held = own != rp.current && rp.retained == rp.current;

    /* Push ours over the primary: the runtime now works in it, kernel included. */
    for (int i = 0; i < N; i++)
        host[i] = (unsigned int)i;
    ok = checkDriver(cuCtxPushCurrent(own)) &&
         runtime_round_trip(&in_own, &owner_own, host, back, N) &&
         checkDriver(cuCtxPopCurrent(&popped));
    if (!ok)
        goto done;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += back[i] != (unsigned int)i + 1u;
    printf("pushed ours: cudaMalloc's buffer belongs to %s; add_one<<<>>>: %d of %d words wrong\n",
           owner_own == own ? "our context" : "another context", wrong, N);

    /* Popped: the primary context is current again, and so is where cudaMalloc lands. */
    ok = runtime_alloc_owner(&in_primary, bytes, &owner_primary);
    if (ok)
        printf("popped (%s): cudaMalloc's buffer belongs to %s\n",
               popped == own ? "ours came off" : "another came off",
               owner_primary == rp.current ? "the primary context" : "another context");
    held = held && owner_own == own && popped == own && wrong == 0 && owner_primary == rp.current;
    ok = ok && held;

done: /* everything freed in its own context; ours destroyed (the runtime keeps the primary) */
    if (in_primary)
        ok = checkRuntime(cudaFree(in_primary)) && ok;
    if (in_own && checkDriver(cuCtxPushCurrent(own)))
        ok = checkRuntime(cudaFree(in_own)) && checkDriver(cuCtxPopCurrent(&popped)) && ok;
    if (own)
        ok = checkDriver(cuCtxDestroy(own)) && ok;
    free(host);
    free(back);
    printf("RESULT: %s\n",
           ok ? "PASS - two contexts, one stack, memory where the current one is" : "FAIL");
    return ok ? EXIT_OK : EXIT_CHECK;
}
