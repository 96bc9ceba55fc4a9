/* 02_driver_context/proof/entry_points.c - step 9, reaching the Driver API from a runtime program:
 * cuGetProcAddress (CUDA 11.3; its query result since 12.0) and
 * cudaGetDriverEntryPointByVersion (CUDA 12.5), against dlsym, which this suite's own loader
 * (common/driver_loader.c) uses, and against linking -lcuda. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "lesson.h"

#if CUDA_VERSION >= 12050

#define STR_(x) #x
#define STR(x)  STR_(x) /* expands cuda.h's macro first: cuCtxCreate -> "cuCtxCreate_v4" */

/* The address of an exported symbol of the libcuda.so.1 that the loader opened. */
static void *lib_sym(const char *name)
{
    void *h = driver_library_handle();
    return h ? dlsym(h, name) : NULL;
}

/* Which of the names (a NULL-terminated list) the driver exports at address p. */
static const char *which(void *p, const char *const *names)
{
    if (!p)
        return "no pointer";
    for (; *names; names++)
        if (lib_sym(*names) == p)
            return *names;
    return "another address";
}

static const char *proc_status(CUdriverProcAddressQueryResult q)
{
    switch (q) {
    case CU_GET_PROC_ADDRESS_SUCCESS: return "CU_GET_PROC_ADDRESS_SUCCESS";
    case CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: return "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND";
    case CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT:
        return "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT";
    default: return "status not set";
    }
}

static const char *rt_status(enum cudaDriverEntryPointQueryResult q)
{
    switch (q) {
    case cudaDriverEntryPointSuccess: return "cudaDriverEntryPointSuccess";
    case cudaDriverEntryPointSymbolNotFound: return "cudaDriverEntryPointSymbolNotFound";
    case cudaDriverEntryPointVersionNotSufficent: return "cudaDriverEntryPointVersionNotSufficent";
    default: return "status not set";
    }
}

#define UNSET_PROC ((CUdriverProcAddressQueryResult)99)
#define UNSET_RT   ((enum cudaDriverEntryPointQueryResult)99)

/* The file of the library that holds address p ("" when unknown). */
static const char *library_of(void *p)
{
    Dl_info info;
    return p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : "";
}

/* Does another library answer as libcuda.so.1 and forward to the driver (a test shim, a
 * virtualisation layer)? Then the functions it exports are its own, not the driver's that
 * cuGetProcAddress hands out. Returns its file name, or NULL. */
static const char *stand_in(void)
{
    void *asked = NULL;
    CUdriverProcAddressQueryResult q;
    void *exported = lib_sym("cuMemAlloc_v2");
    if (cuGetProcAddress("cuMemAlloc", &asked, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) !=
            CUDA_SUCCESS ||
        !asked || !exported)
        return NULL;
    const char *mine = library_of(exported);
    return *mine && strcmp(mine, library_of(asked)) != 0 ? mine : NULL;
}

/* An address comparison, unless a tool sits between the program and the driver (compute-
 * sanitizer, a profiler: CUDA_INJECTION64_PATH or LD_PRELOAD) or another library answers as
 * libcuda.so.1: each hands out functions of its own. */
static void claim_same(bool same, const char *text)
{
    const char *tool = getenv("CUDA_INJECTION64_PATH");
    if (!tool || !*tool)
        tool = getenv("LD_PRELOAD");
    const char *lib = same ? NULL : stand_in();
    char why[512];
    if (!same && tool && *tool) {
        not_judged("a tool (CUDA_INJECTION64_PATH or LD_PRELOAD) wraps the driver's entry points",
                   "%s", text);
    } else if (lib) {
        snprintf(why, sizeof why,
                 "the libcuda.so.1 loaded here (%s) is not the driver's: it forwards to "
                 "it and exports functions of its own",
                 lib);
        not_judged(why, "%s", text);
    } else {
        claim(same, "%s", text);
    }
}

/* a) cuMemAlloc three ways, and a call through the runtime's pointer. */
static bool three_ways(struct lesson *L)
{
    bool ok = true;
    void *by_dlsym = lib_sym("cuMemAlloc_v2"), *by_proc = NULL, *by_rt = NULL;
    CUdriverProcAddressQueryResult q = UNSET_PROC;
    enum cudaDriverEntryPointQueryResult rq = UNSET_RT;
    TRY(checkDriver(
        cuGetProcAddress("cuMemAlloc", &by_proc, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q)));
    TRY(checkRuntime(
        cudaGetDriverEntryPointByVersion("cuMemAlloc", &by_rt, 12000, cudaEnableDefault, &rq)));
    printf("   a) cuMemAlloc three ways (since CUDA 3.2 the symbol cuMemAlloc_v2, with size_t "
           "sizes):\n");
    printf("      dlsym(libcuda.so.1, \"cuMemAlloc_v2\")                           -> %p  (this "
           "suite's loader)\n",
           by_dlsym);
    printf("      cuGetProcAddress(\"cuMemAlloc\", 12000, DEFAULT)                 -> %p  %s\n",
           by_proc, proc_status(q));
    printf("      cudaGetDriverEntryPointByVersion(\"cuMemAlloc\", 12000, Default) -> %p  %s\n",
           by_rt, rt_status(rq));
    claim_same(by_dlsym && by_proc == by_dlsym && by_rt == by_dlsym,
               "all three are one entry point of libcuda.so.1, cuMemAlloc_v2");

    typedef CUresult(CUDAAPI * get_current_fn)(CUcontext *);
    void *fn = NULL;
    CUcontext via = NULL;
    TRY(checkRuntime(
        cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &rq)));
    TRY(fn && checkDriver(((get_current_fn)fn)(&via)));
    CUcontext now = current(&ok);
    printf("      cuCtxGetCurrent called through the runtime's pointer -> %s (the current context: "
           "%s)\n",
           name_of(via), name_of(now));
    claim(via == L->runtime_ctx && now == via, "a function from the runtime's entry point acts on "
                                               "the same driver state: the primary context");
    return ok;
}

/* b) the version argument picks the ABI. */
static bool versions(struct lesson *L)
{
    static const char *const creates[] = {"cuCtxCreate", "cuCtxCreate_v2", "cuCtxCreate_v3",
                                          "cuCtxCreate_v4", NULL};
    static const int versions[] = {3020, 11040, 12050};
    void *at[3] = {NULL, NULL, NULL};
    CUdriverProcAddressQueryResult q = UNSET_PROC;
    printf("   b) the version argument: cuGetProcAddress(\"cuCtxCreate\", version, DEFAULT)\n");
    for (int i = 0; i < 3; i++) {
        if (!driver_knows_version(L->driver_version, versions[i])) {
            printf("      version %5d -> not asked: this driver supports CUDA %d.%d\n", versions[i],
                   L->driver_version / 1000, L->driver_version % 1000 / 10);
            continue;
        }
        TRY(checkDriver(
            cuGetProcAddress("cuCtxCreate", &at[i], versions[i], CU_GET_PROC_ADDRESS_DEFAULT, &q)));
        printf("      version %5d -> %s\n", versions[i], which(at[i], creates));
    }
    printf("      cuda.h of CUDA %d.%d names cuCtxCreate %s: what -lcuda and this suite's loader "
           "bind\n",
           CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, STR(cuCtxCreate));
    if (driver_knows_version(L->driver_version, 12050)) {
        claim_same(at[0] && at[0] == lib_sym("cuCtxCreate_v2") && at[2] &&
                       at[2] == lib_sym("cuCtxCreate_v4"),
                   "the version picks the ABI: 3020 gives cuCtxCreate_v2 (flags, device), 12050 "
                   "cuCtxCreate_v4 (with CUctxCreateParams)");
    } else { /* a driver older than 12.5 has no cuCtxCreate_v4 to give */
        claim_same(at[0] && at[0] == lib_sym("cuCtxCreate_v2"),
                   "the version picks the ABI: 3020 gives cuCtxCreate_v2 (flags, device)");
        not_judged("the driver is older than CUDA 12.5, which brought cuCtxCreate_v4",
                   "12050 gives cuCtxCreate_v4 (with CUctxCreateParams)");
    }
    return true;
}

/* c) the per-thread-default-stream variants. */
static bool streams(void)
{
    static const char *const copies[] = {"cuMemcpyAsync", "cuMemcpyAsync_ptsz", NULL};
    CUdriverProcAddressQueryResult q = UNSET_PROC;
    void *legacy = NULL, *per_thread = NULL, *by_default = NULL, *rt_per_thread = NULL;
    enum cudaDriverEntryPointQueryResult rq = UNSET_RT;
    TRY(checkDriver(cuGetProcAddress("cuMemcpyAsync", &legacy, 12000,
                                     CU_GET_PROC_ADDRESS_LEGACY_STREAM, &q)) &&
        checkDriver(cuGetProcAddress("cuMemcpyAsync", &per_thread, 12000,
                                     CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &q)) &&
        checkDriver(cuGetProcAddress("cuMemcpyAsync", &by_default, 12000,
                                     CU_GET_PROC_ADDRESS_DEFAULT, &q)) &&
        checkRuntime(cudaGetDriverEntryPointByVersion("cuMemcpyAsync", &rt_per_thread, 12000,
                                                      cudaEnablePerThreadDefaultStream, &rq)));
    printf("   c) the default stream: cuGetProcAddress(\"cuMemcpyAsync\", 12000, flag)\n");
    printf("      CU_GET_PROC_ADDRESS_LEGACY_STREAM            -> %s\n", which(legacy, copies));
    printf("      CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM -> %s\n",
           which(per_thread, copies));
    printf(
        "      CU_GET_PROC_ADDRESS_DEFAULT                  -> %s (this C file is built without\n"
        "         CUDA_API_PER_THREAD_DEFAULT_STREAM)\n",
        which(by_default, copies));
    printf("      runtime, cudaEnablePerThreadDefaultStream    -> %s\n",
           which(rt_per_thread, copies));
    claim_same(legacy && legacy == lib_sym("cuMemcpyAsync") && per_thread &&
                   per_thread == lib_sym("cuMemcpyAsync_ptsz") && rt_per_thread == per_thread,
               "the per-thread flag gives cuMemcpyAsync_ptsz, the legacy flag cuMemcpyAsync: two "
               "functions");
    return true;
}

/* d) what the query says when there is no function to give. */
static bool no_function(struct lesson *L)
{
    void *old = NULL, *newer = NULL, *rt_newer = NULL, *unknown = NULL;
    CUdriverProcAddressQueryResult q_old = UNSET_PROC, q_newer = UNSET_PROC, q_unknown = UNSET_PROC;
    enum cudaDriverEntryPointQueryResult rq = UNSET_RT;
    int too_new = L->driver_version + 1000;
    CUresult r_old =
        cuGetProcAddress("cuLibraryLoadData", &old, 11080, CU_GET_PROC_ADDRESS_DEFAULT, &q_old);
    CUresult r_newer =
        cuGetProcAddress("cuMemAlloc", &newer, too_new, CU_GET_PROC_ADDRESS_DEFAULT, &q_newer);
    cudaError_t e_newer = cudaGetDriverEntryPointByVersion(
        "cuMemAlloc", &rt_newer, (unsigned int)too_new, cudaEnableDefault, &rq);
    CUresult r_unknown = cuGetProcAddress("cuNoSuchFunction", &unknown, 12000,
                                          CU_GET_PROC_ADDRESS_DEFAULT, &q_unknown);
    (void)cudaGetLastError(); /* the runtime call above may have failed on purpose */
    printf("   d) when there is no function to give:\n");
    printf("      \"cuLibraryLoadData\" (new in CUDA 12.0) at 11080 -> %s, %s, %s\n",
           error_name(r_old), old ? "a pointer" : "no pointer", proc_status(q_old));
    printf("      \"cuMemAlloc\" at %d (the driver's version + 1000) -> %s, %s, %s\n", too_new,
           error_name(r_newer), newer ? "a pointer" : "no pointer", proc_status(q_newer));
    printf("      the runtime, the same request -> %s, %s, %s\n", cudaGetErrorName(e_newer),
           rt_newer ? "a pointer" : "no pointer", rt_status(rq));
    printf("      \"cuNoSuchFunction\" at 12000 -> %s, %s, %s\n", error_name(r_unknown),
           unknown ? "a pointer" : "no pointer", proc_status(q_unknown));
    claim(
        !old && q_old == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
        "a version older than the function: no pointer, and the query says VERSION_NOT_SUFFICIENT");
    claim(!newer && !rt_newer, "a version newer than the driver: neither API hands out a pointer");
    claim(!unknown && q_unknown == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
          "a name the driver does not have: no pointer, SYMBOL_NOT_FOUND");
    return true;
}

bool step_9_entry_points(struct lesson *L)
{
    printf("\n9. Reaching the Driver API from a runtime program: entry points\n");
    return three_ways(L) && versions(L) && streams() && no_function(L);
}

#else /* CUDA_VERSION < 12050: cudaGetDriverEntryPointByVersion is not in these headers */

bool step_9_entry_points(struct lesson *L)
{
    (void)L;
    printf("\n9. Reaching the Driver API from a runtime program: entry points\n");
    printf("   these headers are CUDA %d.%d; cudaGetDriverEntryPointByVersion came in 12.5\n",
           CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    not_judged("the toolkit is older than CUDA 12.5", "the entry points of step 9");
    return true;
}

#endif
