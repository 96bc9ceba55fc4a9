/* 02_driver_context/proof/apparatus.c - the instruments the steps use but do not teach: names for the
 * contexts, the stack printout, free device memory, filling and checking buffers. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_shared.h"
#include "lesson.h"

CUcontext ctx_a, ctx_b, primary_ctx;
CUcontext dev_ctx[MAX_DEVICES];
int dev_ctx_count;
CUcontext stack[8];
int depth;
CUresult context_refused;

const char *error_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

const char *name_of(CUcontext c)
{
    static char buf[4][24];
    static int next;
    if (!c)
        return "none";
    if (c == ctx_a)
        return "ctxA";
    if (c == ctx_b)
        return "ctxB";
    if (c == primary_ctx)
        return "primary";
    for (int i = 0; i < dev_ctx_count; i++) {
        if (c == dev_ctx[i]) {
            next = (next + 1) % 4;
            snprintf(buf[next], sizeof buf[next], "ctx%d", i);
            return buf[next];
        }
    }
    return "another context";
}

/* A refusal ends the lesson with exit 77 after its cleanup: CUDA_ERROR_DEVICE_UNAVAILABLE (the
 * device's compute mode lets one context, or one process, at a time use it, and that is taken)
 * or CUDA_ERROR_OUT_OF_MEMORY (free device memory does not hold one more context). */
bool make_context(CUcontext *ctx, CUdevice dev, const char *file, int line)
{
    CUresult r = create_context(ctx, dev);
    if (r == CUDA_ERROR_DEVICE_UNAVAILABLE || r == CUDA_ERROR_OUT_OF_MEMORY)
        context_refused = r;
    return check_driver_(r, "create_context(&ctx, dev)", file, line);
}

CUcontext current(bool *ok)
{
    CUcontext c = NULL;
    if (!checkDriver(cuCtxGetCurrent(&c)))
        *ok = false;
    return c;
}

CUcontext owner_of(CUdeviceptr p, bool *ok)
{
    CUcontext c = NULL;
    if (!checkDriver(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p)))
        *ok = false;
    return c;
}

size_t free_memory(bool *ok)
{
    size_t free_b = 0, total_b = 0;
    if (!checkDriver(cuMemGetInfo(&free_b, &total_b)))
        *ok = false;
    return free_b;
}

/* The control sample: free device memory read 10 times, 10 ms apart, with nothing of this
 * process changing meanwhile; how far it moved (max - min), in MiB. */
double free_memory_spread(bool *ok)
{
    size_t lo = (size_t)-1, hi = 0;
    for (int i = 0; i < 10; i++) {
        if (i)
            nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
        size_t f = free_memory(ok);
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
    }
    return (double)(hi - lo) / MIB;
}

void fill(unsigned int *h, unsigned int seed)
{
    for (int i = 0; i < WORDS; i++)
        h[i] = seed * 2654435761u + (unsigned int)i;
}

int wrong_words(const unsigned int *h, unsigned int seed, unsigned int plus)
{
    int wrong = 0;
    for (int i = 0; i < WORDS; i++)
        wrong += h[i] != seed * 2654435761u + (unsigned int)i + plus;
    return wrong;
}

/* Free a runtime allocation with its context current. */
bool cuda_free_in(CUcontext ctx, void **p)
{
    bool ok = true;
    if (!*p)
        return true;
    if (checkDriver(cuCtxPushCurrent(ctx))) {
        ok = checkRuntime(cudaFree(*p));
        CUcontext popped;
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    } else {
        ok = false;
    }
    *p = NULL;
    return ok;
}

/* The stack as the program keeps it, with the current context the driver reported (cur). */
void show_stack_as(const char *after, CUcontext cur)
{
    char line[160] = "";
    size_t used = 0;
    for (int i = 0; i < depth; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", i ? " " : "",
                                 name_of(stack[i]));
    printf("   %-34s current = %-7s stack (bottom -> top): [%s]\n", after, name_of(cur), line);
}

void show_stack(const char *after, bool *ok)
{
    show_stack_as(after, current(ok));
}

/* Does another program share this GPU (common/gpu_shared.h: NVML's list of processes with a
 * context on it, or in a container's PID namespace the GPU-wide signals)? Its allocations move
 * cuMemGetInfo's figure, which is the whole GPU's. Fills why (else leaves it as it is). */
bool gpu_company(char *why, size_t len)
{
    char seen[400];
    if (!gpu_shared_evidence(seen, sizeof seen))
        return false;
    snprintf(why, len,
             "%s: another program shares this GPU, and the free device memory cuMemGetInfo "
             "reports is the whole GPU's",
             seen);
    return true;
}
