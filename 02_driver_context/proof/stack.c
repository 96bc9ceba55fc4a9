/* 02_driver_context/stack.c - step 3, the context stack of one thread, and step 4, memory
 * belongs to a context but is not fenced off: a copy and a kernel in ctxB reach ctxA's buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

bool step_3_context_stack(struct lesson *L)
{
    bool ok = true;
    printf("\n3. The context stack of this thread\n");
    depth = 0;
    stack[depth++] = ctx_a;
    show_stack("after cuCtxCreate(ctxA):", &ok);
    TRY(CREATE_CONTEXT(&ctx_b, L->dev));
    stack[depth++] = ctx_b;
    show_stack("after cuCtxCreate(ctxB):", &ok);
    claim(current(&ok) == ctx_b, "cuCtxCreate pushed ctxB on top of ctxA: ctxB is current");

    CUcontext popped = NULL;
    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    printf("   cuCtxPopCurrent returned %s\n", name_of(popped));
    claim(popped == ctx_b && current(&ok) == ctx_a,
          "popping returned ctxB and made ctxA, the one below, current again");

    TRY(checkDriver(cuCtxPushCurrent(ctx_b)));
    stack[depth++] = ctx_b;
    show_stack("after cuCtxPushCurrent(ctxB):", &ok);
    claim(current(&ok) == ctx_b, "cuCtxPushCurrent(ctxB) made ctxB current above ctxA");

    TRY(checkDriver(cuCtxSetCurrent(ctx_a)));
    stack[depth - 1] = ctx_a;
    show_stack("after cuCtxSetCurrent(ctxA):", &ok);
    int entries = stack_depth(); /* pops them all, counts them, pushes them back */
    printf("   stack_depth() -> %d entries (popped until empty, counted, pushed back)\n", entries);
    claim(current(&ok) == ctx_a && entries == 2,
          "cuCtxSetCurrent(ctxA) replaced the top of the stack, it did not push: ctxA on top, "
          "still 2 entries");

    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    CUcontext after_first = current(&ok);
    TRY(checkDriver(cuCtxPopCurrent(&popped)));
    depth--;
    show_stack("after cuCtxPopCurrent:", &ok);
    CUcontext after_second = current(&ok);
    claim(after_first == ctx_a && after_second == NULL,
          "two pops emptied the stack (ctxA, then none): the stack held two entries, not three");

    popped = (CUcontext)(uintptr_t)0x5eed;
    CUresult r = cuCtxPopCurrent(&popped);
    printf("   cuCtxPopCurrent on the empty stack -> %s (%d)\n", error_name(r), (int)r);
    claim(r != CUDA_SUCCESS, "popping an empty stack is an error, not a no-op");

    TRY(checkDriver(cuCtxPushCurrent(ctx_a)));
    stack[depth++] = ctx_a;
    show_stack("after cuCtxPushCurrent(ctxA):", &ok);
    return ok;
}

/* 4, the second half: owned is not fenced off. With ctxB current, a copy and then a kernel
 * reach ctxA's buffer (pattern 1; the kernel writes pattern 4): no peer access, which one GPU
 * cannot give itself. */
static bool not_fenced(struct lesson *L)
{
    int unified = 0, self_peer = -1;
    CUcontext popped = NULL;
    TRY(checkDriver(
        cuDeviceGetAttribute(&unified, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, L->dev)));
    memset(L->host_out, 0, BYTES);
    CUresult r = read_in_context(ctx_b, L->host_out, L->buf_a, BYTES);
    int wrong_cross = wrong_words(L->host_out, 1, 0);
    printf("   CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING -> %d (one address space for the host and "
           "every\n"
           "   context of the process)\n",
           unified);
    printf("   with ctxB current, cuMemcpyDtoH from ctxA's buffer -> %s (%d), %d wrong\n",
           error_name(r), (int)r, wrong_cross);
    if (unified)
        claim(r == CUDA_SUCCESS && wrong_cross == 0,
              "ctxB's copy read ctxA's buffer: under unified addressing a copy finds any "
              "allocation of the process by its address");
    else
        not_judged("this device does not use unified addressing",
                   "a copy finds any allocation of the process by its address");

    /* A kernel: peer access is for two GPUs; on one, the driver refuses it. */
    TRY(checkDriver(cuDeviceCanAccessPeer(&self_peer, L->dev, L->dev)));
    TRY(checkDriver(cuCtxPushCurrent(ctx_b)));
    CUresult r_peer = cuCtxEnablePeerAccess(ctx_a, 0);
    bool undo = r_peer != CUDA_SUCCESS || checkDriver(cuCtxDisablePeerAccess(ctx_a));
    TRY(checkDriver(cuCtxPopCurrent(&popped)) && undo);
    printf("   cuDeviceCanAccessPeer(dev, dev) -> %d; with ctxB current, "
           "cuCtxEnablePeerAccess(ctxA, 0) -> %s (%d)\n",
           self_peer, error_name(r_peer), (int)r_peer);
    claim(self_peer == 0 && r_peer == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
          "two contexts on one GPU cannot be peers: the device is not its own peer, and "
          "cuCtxEnablePeerAccess is refused");
    TRY(kernel_in_context(ctx_b, L->buf_a, WORDS, 4)); /* pattern 4 over pattern 1 */
    memset(L->host_out, 0, BYTES);
    TRY(checkDriver(read_in_context(ctx_a, L->host_out, L->buf_a, BYTES)));
    int wrong_kernel = wrong_words(L->host_out, 4, 0);
    printf("   write_pattern<<<>>> launched with ctxB current over ctxA's buffer, synchronised in "
           "ctxB\n"
           "   without error; read back in ctxA: %d of %d words wrong\n",
           wrong_kernel, WORDS);
    claim(wrong_kernel == 0,
          "a kernel in ctxB wrote ctxA's buffer without peer access: within one process, "
          "contexts on one GPU do not fence memory, even from kernels");
    return true;
}

bool step_4_memory_belongs_to_a_context(struct lesson *L)
{
    bool ok = true;
    printf("\n4. Memory belongs to a context\n");
    printf("   Runtime API                         Driver API\n");
    printf("   cudaMalloc(void **p, size)          cuMemAlloc(CUdeviceptr *p, size)\n");
    printf("   cudaMemcpy(.., HostToDevice)        cuMemcpyHtoD(dst, src, size)\n");
    printf("   cudaMemcpy(.., DeviceToHost)        cuMemcpyDtoH(dst, src, size)\n");
    printf("   cudaFree(p)                         cuMemFree(p)\n");
    printf("   context: the current one, else the  context: the current one, which you made\n");
    printf("   device's primary (made on demand)   (no current context: "
           "CUDA_ERROR_INVALID_CONTEXT)\n");
    L->host_in = malloc(BYTES);
    L->host_out = malloc(BYTES);
    if (!L->host_in || !L->host_out) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    /* One buffer made with ctxA current, one with ctxB; each copied back in its own. */
    fill(L->host_in, 1);
    TRY(alloc_in_context(ctx_a, &L->buf_a, L->host_in, BYTES));
    memset(L->host_out, 0, BYTES);
    TRY(checkDriver(read_in_context(ctx_a, L->host_out, L->buf_a, BYTES)));
    int wrong_a = wrong_words(L->host_out, 1, 0);
    fill(L->host_in, 2);
    TRY(alloc_in_context(ctx_b, &L->buf_b, L->host_in, BYTES));
    memset(L->host_out, 0, BYTES);
    TRY(checkDriver(read_in_context(ctx_b, L->host_out, L->buf_b, BYTES)));
    int wrong_b = wrong_words(L->host_out, 2, 0);
    CUcontext own_a = owner_of(L->buf_a, &ok), own_b = owner_of(L->buf_b, &ok);
    TRY(ok);
    printf("   in ctxA: cuMemAlloc 1 MiB at 0x%llx, copied there and back: %d wrong\n",
           (unsigned long long)L->buf_a, wrong_a);
    printf("   in ctxB: cuMemAlloc 1 MiB at 0x%llx, copied there and back: %d wrong\n",
           (unsigned long long)L->buf_b, wrong_b);
    printf("   cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_CONTEXT): first -> %s, second -> %s\n",
           name_of(own_a), name_of(own_b));
    claim(wrong_a == 0 && wrong_b == 0,
          "cuMemcpyHtoD / cuMemcpyDtoH moved the data intact in both contexts");
    claim(own_a == ctx_a, "the allocation made while ctxA was current belongs to ctxA");
    claim(own_b == ctx_b, "the allocation made while ctxB was current belongs to ctxB");
    return not_fenced(L) && current(&ok) == ctx_a && ok;
}
