/* 02_driver_context/proof/devices.c - step 7, every device with a context of its own, and step 10,
 * what a context holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

/* One context per device, each with a buffer of its own data (pattern 100 + d). Counts the
 * contexts that were current on their own device when made. */
static bool make_every_context(struct lesson *L, int devices, int *made)
{
    CUcontext popped = NULL;
    for (int d = 0; d < devices; d++) {
        CUdevice cd;
        TRY(checkDriver(cuDeviceGet(&cd, d)));
        TRY(CREATE_CONTEXT(&dev_ctx[d], cd)); /* pushed: current now */
        dev_ctx_count = d + 1;
        CUdevice ctx_dev = -1;
        fill(L->host_in, 100u + (unsigned int)d);
        bool step = checkDriver(cuCtxGetDevice(&ctx_dev)) &&
                    checkDriver(cuMemAlloc(&L->dev_buf[d], BYTES)) &&
                    checkDriver(cuMemcpyHtoD(L->dev_buf[d], L->host_in, BYTES));
        TRY(checkDriver(cuCtxPopCurrent(&popped)) && step);
        *made += ctx_dev == cd && popped == dev_ctx[d];
    }
    return true;
}

/* Device d's buffer read back in its own context: its owner, its device, its data. */
static bool read_back(struct lesson *L, int d, int *own_ok, int *data_ok)
{
    CUcontext popped = NULL, owner = NULL;
    CUdevice cd;
    char name[256];
    int ordinal = -1;
    TRY(checkDriver(cuDeviceGet(&cd, d)) &&
        checkDriver(cuDeviceGetName(name, (int)sizeof name, cd)));
    TRY(checkDriver(cuCtxPushCurrent(dev_ctx[d])));
    memset(L->host_out, 0, BYTES);
    bool step =
        checkDriver(cuMemcpyDtoH(L->host_out, L->dev_buf[d], BYTES)) &&
        checkDriver(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, L->dev_buf[d])) &&
        checkDriver(
            cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, L->dev_buf[d]));
    TRY(checkDriver(cuCtxPopCurrent(&popped)) && step);
    int wrong = wrong_words(L->host_out, 100u + (unsigned int)d, 0);
    printf("   [device %d] \"%s\": %s = %p, 1 MiB at 0x%llx, owner %s, ordinal %d, %d wrong\n", d,
           name, name_of(dev_ctx[d]), (void *)dev_ctx[d], (unsigned long long)L->dev_buf[d],
           name_of(owner), ordinal, wrong);
    *own_ok += owner == dev_ctx[d] && ordinal == d;
    *data_ok += wrong == 0;
    return true;
}

bool step_7_every_device(struct lesson *L)
{
    bool ok = true;
    printf("\n7. Every device: one context per GPU\n");
    int devices = L->count < MAX_DEVICES ? L->count : MAX_DEVICES;
    int own_ok = 0, data_ok = 0, made = 0;
    TRY(make_every_context(L, devices, &made));
    /* Only after every device has its buffer, read each one back in its own context. */
    for (int d = 0; d < devices; d++)
        TRY(read_back(L, d, &own_ok, &data_ok));
    for (int d = devices - 1; d >= 0; d--) {
        TRY(free_in(dev_ctx[d], &L->dev_buf[d]));
        TRY(checkDriver(cuCtxDestroy(dev_ctx[d])));
        dev_ctx[d] = NULL;
        dev_ctx_count = d;
    }
    CUcontext now = current(&ok);
    TRY(ok);
    claim(made == devices,
          "each of the %d device(s) got its own context, current on the right device", devices);
    claim(own_ok == devices,
          "each buffer belongs to its device's context and lives on that device (%d device(s))",
          devices);
    claim(data_ok == devices,
          "every buffer held its own data after all the devices were used (%d device(s))", devices);
    claim(now == L->runtime_ctx,
          "after pushing and popping them all, the primary context is current again");
    printf("   Each context owns what was made in it (steps 4 and 7 named the owners), and every\n"
           "   allocation has an address of its own in the process's one unified address space: a\n"
           "   copy, or a kernel on the same GPU, finds it from any context (step 4). A kernel on\n"
           "   one GPU works on another GPU's memory once its context has peer access: step 8.\n");
    return ok;
}

void step_10_what_a_context_holds(void)
{
    printf("\n10. What a context holds, and which API to choose\n");
    printf("   NVIDIA's Programming Guide (\"The CUDA Driver API\", Context) likens a context to a "
           "CPU\n"
           "   process: it holds the allocations and their mappings, the modules loaded into it,\n"
           "   its streams and events, its limits (step 2); destroying it frees them all.\n");
    printf(
        "   It is no wall between tenants, as examples that name isolation as a reason for\n"
        "   contexts suggest: a copy and a kernel in ctxB reached ctxA's memory (step 4); the\n"
        "   process is the boundary. Separate processes keep tenants' memory apart. On one GPU,\n"
        "   MPS (Volta and later) gives each client process its own address space and limits,\n"
        "   but a fatal fault in one client reaches every client sharing that GPU; MIG\n"
        "   partitions the GPU so that one instance's faults and memory stay its own (NVIDIA's\n"
        "   MPS and MIG user guides).\n");
    printf("   Runtime API: one primary context per device, shared by every thread and library of\n"
           "   the process (runtime API reference, \"Interactions with the CUDA Driver API\").\n"
           "   Advice, not measured: choose it for applications; the Driver API for frameworks,\n"
           "   plugins and tools that load code at run time or need explicit lifetimes, and\n"
           "   cuDevicePrimaryCtxRetain rather than cuCtxCreate to share a device with the "
           "runtime.\n");
}
