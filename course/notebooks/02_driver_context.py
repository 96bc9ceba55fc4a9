# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02_driver_context: cuCtxCreate or cudaSetDevice?
#
# Lesson 01 let the runtime make the device's **primary context** for you. This lesson makes
# contexts by hand with the Driver API and puts them next to the runtime's, on one GPU.
#
# This notebook is made from the lesson's `README.md` (course/make-notebooks): the idea, the code it quotes, then the lesson run on this machine's GPU and your exercises, graded by `make check`. It runs on Colab (a T4 GPU) and in a local Jupyter inside a checkout. Run the cells in order.

# %% [markdown]
# ## The suite and the GPU
#
# The first cell finds the suite (a checkout, or a clone of its release tag on Colab); the next says which GPU, driver and toolkit this machine has; then `make doctor` says what this machine will show and what it cannot judge.

# %%
# Where the suite comes from. In a checkout (a local Jupyter started anywhere inside it) the
# notebook uses that checkout. On Colab it clones SUITE_URL at SUITE_REF, this notebook's own
# release tag (never a branch). A teacher sets SUITE_URL once for every notebook, in
# course/kit.conf before make notebooks (or here, or as the environment's CUDA_LESSONS_URL).
SUITE_URL = ""  # your course's copy, e.g. "https://github.com/your-course/cuda-lessons.git" (course/kit.conf)
SUITE_REF = "course-v1"  # the release these cells were made from (course/kit.conf)
LESSON = "02_driver_context"

import os, pathlib, shutil, subprocess, sys

def find_checkout():
    here = pathlib.Path.cwd().resolve()
    given = [pathlib.Path(os.environ["CUDA_LESSONS"]).resolve()] if os.environ.get("CUDA_LESSONS") else []
    for d in [*given, here, *here.parents]:
        if (d / "common" / "config.mk").is_file() and (d / "course").is_dir():
            return d
    return None

suite = find_checkout()
if suite is None:
    url = os.environ.get("CUDA_LESSONS_URL", SUITE_URL)
    if not url:
        raise SystemExit("No checkout here, and SUITE_URL is empty: set it (this cell, or course/kit.conf) to your course's copy of the repository.")
    tags = subprocess.run(["git", "ls-remote", "--tags", url, "refs/tags/" + SUITE_REF], capture_output=True, text=True)
    if tags.returncode != 0 or not tags.stdout.strip():
        raise SystemExit(f"{url} has no tag {SUITE_REF} (git ls-remote: {tags.stderr.strip() or 'no such tag'}): the notebook clones its own release tag only.")
    suite = pathlib.Path("cuda-lessons").resolve()
    if not suite.exists():
        subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", "--depth", "1", "--branch", SUITE_REF, url, str(suite)], check=True)
    # bats for make check: make check gets it itself (tests/ensure-bats: the system's packages
    # where they have bats 1.7+ with bats-assert, else the releases cloned with git; Colab's
    # Ubuntu 22.04 has bats 1.2.1 and no bats-assert package)
os.chdir(suite)
os.environ["CUDA_LESSONS"] = str(suite)
cuda_bin = "/usr/local/cuda/bin"
if shutil.which("nvcc") is None and os.path.isdir(cuda_bin):
    os.environ["PATH"] = cuda_bin + os.pathsep + os.environ["PATH"]
print("the suite:", suite)
print("its commit:", subprocess.run(["git", "-C", str(suite), "describe", "--tags", "--always", "--dirty"],
                                    capture_output=True, text=True).stdout.strip() or "(not a git checkout)")

# %% language="bash"
# if ! nvidia-smi >/dev/null 2>&1; then
#   echo "No GPU in this runtime: on Colab choose Runtime > Change runtime type > T4 GPU, then run the notebook again from the top (here everything still builds, and each lesson says why it cannot run)."
# else
#   nvidia-smi --query-gpu=driver_version,name,compute_cap --format=csv,noheader | sed 's/^/driver, card, compute capability: /'
# fi
# if command -v nvcc >/dev/null 2>&1; then
#   echo "toolkit: $(nvcc --version | grep -o 'release [0-9.]*, V[0-9.]*') at $(command -v nvcc)"
# else
#   echo "toolkit: no nvcc on PATH (install the CUDA Toolkit; on Colab a GPU runtime has it)"
# fi

# %% language="bash"
# cd "$CUDA_LESSONS" || exit 1
# make doctor; rc=$?
# # make doctor exits 0 when ready; 2 after a line naming the doctor's own code (1 something to fix,
# # 77 no usable GPU). Either way the notebook goes on: the lines above say what this machine shows.
# [ "$rc" -eq 0 ] || echo "notebook: make doctor exited $rc (read the [FIX] and [none] lines above); going on"

# %% [markdown]
# ## The idea
#
# A **context** is the GPU's version of a process: it holds your allocations, the kernels loaded
# for you, your streams. A CUDA call that works on the device works in one context, the
# *current* one. There are two ways to get one:
#
# - the Driver API: `cuInit`, `cuDeviceGet`, then `cuCtxCreate` makes a context of your own, and
#   you own its whole life, until `cuCtxDestroy`;
# - the Runtime API: with no context current, `cudaSetDevice` (or any first call that needs the
#   device) uses the device's primary context, one per device, shared by the whole process.
#
# Each host thread keeps a **stack** of contexts; the top one is current:
#
#     cuCtxCreate(ctxA)      [ctxA]            ctxA current
#     cuCtxCreate(ctxB)      [ctxA ctxB]       ctxB current (a new context is pushed)
#     cuCtxPopCurrent        [ctxA]            ctxA current again
#     cudaSetDevice(0)       [primary]         the top is replaced, not pushed
#
# Memory from `cuMemAlloc` or `cudaMalloc` belongs to the context that was current when it was
# allocated: a `cudaMalloc` made while your context is pushed lands in yours, not in the
# runtime's (`cuMemCreate` and the stream-ordered pools' memory belongs to none, cuda.h says). Knowing which context is current is knowing where your work goes: a library that
# mixes the two APIs can put its work in the wrong one. This lesson shows where each call lands.

# %% [markdown]
# ## Key concepts
#
# - **cuInit** comes first: before it, calls that need a device fail with
#   `CUDA_ERROR_NOT_INITIALIZED`; a few (the driver's version, error names) work.
# - **A created context is not the primary context.** `cuCtxCreate` makes a new one and pushes
#   it; `cuDevicePrimaryCtxRetain` hands the Driver API the very context the runtime uses.
# - **CUDA 13 changed `cuCtxCreate`**: it now takes a `CUctxCreateParams *` (NULL for none)
#   before the flags, `cuCtxCreate(&ctx, NULL, 0, dev)`; the three-argument call of CUDA 12 and
#   of many examples no longer compiles.
# - **The context stack** is per host thread: push, pop, and `cuCtxSetCurrent` (which replaces
#   the top, and is what `cudaSetDevice` does).
# - **Ownership**: `cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_CONTEXT)` names the context an
#   allocation belongs to. The runtime allocates in the current context, else in the primary one.
#
# CUDA APIs involved: `cuInit`, `cuDeviceGet`, `cuDeviceGetName`, `cuDeviceGetAttribute`,
# `cuCtxCreate`, `cuCtxDestroy`, `cuCtxPushCurrent`, `cuCtxPopCurrent`, `cuCtxSetCurrent`,
# `cuCtxGetCurrent`, `cuDevicePrimaryCtxRetain`, `cuDevicePrimaryCtxRelease`,
# `cuDevicePrimaryCtxGetState`, `cuPointerGetAttribute`, `cuMemAlloc`, `cuMemcpyHtoD`,
# `cuMemcpyDtoH`, `cudaSetDevice`, `cudaMalloc`, `cudaMemcpy`, `cudaFree`, `<<<>>>`;
# in the second document also `cuCtxEnablePeerAccess`, `cuGetProcAddress` and
# `cudaGetDriverEntryPointByVersion`.

# %% [markdown]
# ## The code
#
# `demo.c` is the lesson in one short program, in CUDA's own calls, each checked by `demo.h`'s
# `checkDriver(op)` / `checkRuntime(op)` (the file, line, call and error on failure). `core.c`
# holds the same calls for the lesson's program, which runs them step by step in `proof/`.
#
# A context of our own, then the runtime's. Look at the `#if`: CUDA 13's `cuCtxCreate` has four
# arguments, CUDA 12's three. The new context is pushed, so it is current as soon as the call
# returns; popped, no context is current, and `cudaSetDevice` makes the primary one current:
# `cuDevicePrimaryCtxRetain` returns that very context, and our release leaves it alive because
# the runtime holds its own reference.
# `demo.c:15-41`
# ```c
# /* Steps 2 and 5: a context of our own (cuCtxCreate pushes it: current), popped; then the
#  * runtime's, which cudaSetDevice makes current when none is, and the Driver API retains. */
# static bool two_contexts(CUdevice dev, CUcontext *own, CUcontext *primary)
# {
#     CUcontext popped = NULL, current = NULL;
# #if CUDA_VERSION >= 13000
#     if (!checkDriver(cuCtxCreate(own, NULL, 0, dev))) /* CUDA 13: CUctxCreateParams *, flags */
# #else
#     if (!checkDriver(cuCtxCreate(own, 0, dev))) /* CUDA 12: flags, device */
# #endif
#         return false;
#     if (!checkDriver(cuCtxPopCurrent(&popped)))
#         return false;
#     if (!checkRuntime(cudaSetDevice(0)))
#         return false;
#     if (!checkDriver(cuCtxGetCurrent(&current)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxRetain(primary, dev)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxRelease(dev))) /* the runtime keeps its own reference */
#         return false;
#     printf("cuCtxCreate -> %p; cudaSetDevice(0) -> current %p, cuDevicePrimaryCtxRetain %p\n",
#            (void *)*own, (void *)current, (void *)*primary);
#     return claim(popped == *own && current == *primary && *own != *primary,
#                  "the created context is not the primary one; cudaSetDevice made the primary "
#                  "one current");
# }
# ```
#
# Then the runtime in whatever context is current (`runtime_in_current`, `demo.c:43-64`): nothing
# there names a context. `cudaMalloc`'s buffer lands in the current one, and the driver says so
# (`cuPointerGetAttribute` with `CU_POINTER_ATTRIBUTE_CONTEXT`); `add_one<<<>>>` runs there too
# (the runtime loads the kernel into that context).
#
# `main` runs it with ours pushed over the primary, then popped, and checks every word:
# `demo.c:80-94`
# ```c
#     if (!checkDriver(cuCtxPushCurrent(own))) /* ours over the primary: the runtime works in it */
#         goto done;
#     if (!runtime_in_current(host, N, &in_own))
#         goto done;
#     if (!checkDriver(cuCtxPopCurrent(&popped))) /* the primary context is current again */
#         goto done;
#     ok = runtime_in_current(host, N, &in_primary);
#     for (int i = 0; ok && i < N; i++)
#         wrong += host[i] != 2u; /* add_one ran twice, once in each context */
#     printf("cudaMalloc with ours pushed: owner %p; popped: owner %p; %d of %d words wrong\n",
#            (void *)in_own, (void *)in_primary, wrong, N);
#     claim(in_own == own, "with our context pushed, cudaMalloc's buffer belongs to ours");
#     claim(popped == own && in_primary == primary,
#           "popped, the runtime allocates in the primary context again");
#     claim(ok && wrong == 0, "add_one<<<>>> ran in each context, every word checked");
# ```
#
# `cudaSetDevice` does not push. With ctxA and ctxB pushed, it puts the primary context in ctxB's
# place; one pop then exposes ctxA (the lesson's step 5d, from `core.c`):
# `core.c:181-193`
# ```c
# /* 5d. cudaSetDevice does not push: it makes the primary context current with cuCtxSetCurrent,
#  * which replaces the top of the stack. Push a and b, call it, pop once: what comes off, and
#  * what is current then? */
# bool set_device_over_stack(CUcontext a, CUcontext b, int ordinal, struct replaced_top *s)
# {
#     if (!checkDriver(cuCtxPushCurrent(a)) || !checkDriver(cuCtxPushCurrent(b)))
#         return false;
#     if (!checkDriver(cuCtxGetCurrent(&s->after_push)))
#         return false;
#     if (!checkRuntime(cudaSetDevice(ordinal)) || !checkDriver(cuCtxGetCurrent(&s->after_set)))
#         return false;
#     return checkDriver(cuCtxPopCurrent(&s->popped)) && checkDriver(cuCtxGetCurrent(&s->after_pop));
# }
# ```
#
# Build the demo by hand from this folder alone (`make demo` does the same into `build/demo`).
# It calls the Driver API, so it links `libcuda` (`-lcuda`): without the NVIDIA driver the
# system's loader stops it before `main`, where `make run` says why and exits 77.
#
# ```sh
# nvcc -o demo demo.c kernel.cu -lcuda
# ./demo
# ```
#
# The lesson's program (`make run`, its files in `proof/`) checks every claim it prints; where
# each step lives: [IN_DEPTH.md](../../02_driver_context/IN_DEPTH.md#where-is-what-in-the-code).

# %% [markdown]
# ## Run it
#
# The lesson's program, built and run here (`make run` in its folder). Without a usable GPU it stops at its first CUDA call with exit 77 and says why: the cell accepts that and says so. On a GPU it ends with one verdict line. What it printed where the README was written:
#
# ```sh
# make run
# ```
# ```
# 02_driver_context: cuCtxCreate or cudaSetDevice? Contexts made by hand
# ...
# 3. The context stack of this thread
#    after cuCtxCreate(ctxA):           current = ctxA    stack (bottom -> top): [ctxA]
#    after cuCtxCreate(ctxB):           current = ctxB    stack (bottom -> top): [ctxA ctxB]
#   [ok]   cuCtxCreate pushed ctxB on top of ctxA: ctxB is current
#    after cuCtxPopCurrent:             current = ctxA    stack (bottom -> top): [ctxA]
#    cuCtxPopCurrent returned ctxB
#   [ok]   popping returned ctxB and made ctxA, the one below, current again
#    after cuCtxPushCurrent(ctxB):      current = ctxB    stack (bottom -> top): [ctxA ctxB]
#   [ok]   cuCtxPushCurrent(ctxB) made ctxB current above ctxA
#    after cuCtxSetCurrent(ctxA):       current = ctxA    stack (bottom -> top): [ctxA ctxA]
#    stack_depth() -> 2 entries (popped until empty, counted, pushed back)
#   [ok]   cuCtxSetCurrent(ctxA) replaced the top of the stack, it did not push: ctxA on top, still 2 entries
# ...
# 5. The runtime and the driver on one thread
# ...
#    b) runtime calls while ctxA is current
#    cudaGetDevice -> 0; cudaMalloc 1 MiB at 0x7fb17bf00000 -> owner ctxA; add_one<<<>>> ran: 0 wrong
# ...
#   [ok]   cudaMalloc allocated in ctxA, the current user context
#   [ok]   the runtime's kernel ran in ctxA and its result is right
#   [ok]   the runtime used ctxA as it found it: ctxA still current, no primary context started
#    c) pop ctxA: the runtime goes back to the device's primary context
# ...
#   [ok]   with no context current, cudaSetDevice started the primary context and made it current
#   [ok]   cudaMalloc now allocates in the primary context
#   [ok]   cuDevicePrimaryCtxRetain hands the Driver API the very context the runtime uses
# ...
#    d) cudaSetDevice with user contexts on the stack: it replaces the top
#    after pushing ctxA and ctxB:       current = ctxB    stack (bottom -> top): [primary ctxA ctxB]
#    after cudaSetDevice:               current = primary stack (bottom -> top): [primary ctxA primary]
#    after cuCtxPopCurrent:             current = ctxA    stack (bottom -> top): [primary ctxA]
#    cuCtxPopCurrent returned primary
#   [ok]   cudaSetDevice(0) made the primary context current although ctxB was on top
#   [ok]   it replaced ctxB: the pop returned the primary and exposed ctxA, not ctxB
# ...
#   [n/j]  a kernel on the first GPU changed the second GPU's memory once its context had peer access - not judged here: one GPU is visible; this needs two
# ...
# RESULT: PASS - all 50 checks passed, 4 not judged
# ```
#
# Those are lines of one run of this version on an NVIDIA H200 (driver 580.159.04, CUDA 13.0,
# one GPU; `...` marks the lines left out). The four claims not judged are step 8's: peer access
# needs two GPUs. Every step, annotated, with the figures it measures: [IN_DEPTH.md](../../02_driver_context/IN_DEPTH.md).

# %% language="bash"
# cd "$CUDA_LESSONS/02_driver_context" || exit 1
# log="$(mktemp)"
# make run 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # The verdict, said once in a line tools and make run-notebooks read. Exit 77 (no usable GPU or
# # driver: make run says "could not run here") is accepted: nothing was judged, nothing failed.
# if [ "$rc" -eq 0 ] && grep -q '^RESULT: PASS' "$log"; then
#   echo "notebook verdict: 02_driver_context: PASS"
# elif [ "$rc" -eq 0 ] && grep -q 'could not run here (exit 77' "$log"; then
#   echo "notebook verdict: 02_driver_context: NO GPU (exit 77, accepted: the lines above say why)"
# else
#   echo "notebook verdict: 02_driver_context: FAIL (make run exited $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"

# %% [markdown]
# ## Exercises
#
# Each exercise is a folder in `exercises/` with one file that is yours; `FIXME` marks each
# place you change, and the folder's `README.md` says what to do and how it is graded. Grade your
# work with `make check` (a GPU is needed; `make check SOLUTIONS=1` grades the reference
# solutions in `solutions/`).
#
# **`exercises/stack_order/`** (`stack_order.c`): two contexts are on the stack, ctxB on top.
# Make a buffer land in ctxA, then leave the stack exactly as it was, with stack calls only. The
# grader asks the driver which context owns the buffer and reads the whole stack afterwards.
#
# **`exercises/share_primary/`** (`library.c`): a small Driver API "library" hands a buffer to a
# runtime application, but makes a context of its own, so the buffer vanishes when it destroys
# that context. Make it work in the primary context instead: retain and push on entry, pop and
# release on exit.
#
# **`exercises/context_leak/`** (`task.c`): each task creates a context and never ends it, so its
# device memory stays taken and the stack grows. End each context's life; the grader counts the
# contexts left and compares free device memory before and after.
#
# **`exercises/entry_point/`** (`entry_point.c`): get `cuMemGetInfo` in its CUDA 3.2 ABI and the
# per-thread-default-stream `cuMemcpyAsync` through the runtime's
# `cudaGetDriverEntryPointByVersion` (CUDA 12.5), instead of linking `-lcuda`.
#
# The grader, the rules for your file and the points: [IN_DEPTH.md](../../02_driver_context/IN_DEPTH.md#exercises-the-details).
#
# On Colab or in a local Jupyter: [this lesson as a notebook](../../course/notebooks/02_driver_context.ipynb)
# (the idea, the run and your exercises; the slides and a container: [the course kit](../../course/README.md)).
#
# In this notebook each exercise's file is the cell below its task: edit the cell, run it (`%%writefile` writes your file into the lesson's `exercises/` folder), then run the grading cell at the end, `make check`, which grades every exercise of the lesson.

# %% [markdown]
# # context_leak: a context you create lives until you destroy it
#
# Your file is `task.c` (the only one graded). `do_task()` creates a context for one piece of
# work, allocates a buffer, copies the input there and back, frees the buffer, and returns. As
# given, every task leaves its context behind: the device memory it took stays taken, and the
# thread's context stack grows by one entry per task.
#
# What to do:
# - `FIXME` (at the end of `do_task`, line 39): end the context's life. Popping it is not enough:
#   a popped context still exists and still holds its memory. Check the call.
#
# How it is graded: the harness runs four tasks of odd sizes from an observer context; the data
# must be right, no context a task created may be left (each is followed from its `cuCtxCreate`
# to its destroy), the observer must be alone on the stack, the free device memory must come back
# (against a control sample: what one such context takes on this GPU; the grader also reads the
# memory your program holds from outside it, in the driver's list of processes, `nvidia-smi
# --query-compute-apps=pid,used_memory`, and judges that the same way), and a task whose
# allocation fails returns false and still destroys its context. Grade it with `make check` from
# `02_driver_context/` (a GPU is needed).
# After each task the context stack, the primary contexts' state and the current device must be as
# they were.

# %%
# %%writefile 02_driver_context/exercises/context_leak/task.c
/*
 * Exercise 3 - context_leak: a context you create lives until you destroy it.
 *
 * This file is yours (the only one graded). do_task() creates a context for one piece of
 * work, allocates a buffer, copies the input there and back, frees the buffer ... and returns.
 * The harness (harness/context_leak/) runs four tasks from an "observer" context and asks the
 * driver what is left: the free device memory before and after (beside a control sample: what
 * one such context takes on this GPU), the contexts created and not destroyed, and the stack;
 * it also makes one task's allocation fail: that task returns false and still ends its context.
 * As given, every task leaves its context behind: the device memory each one took stays taken,
 * and the context stack of the thread grows by one entry per task.
 * FIXME: at the end of do_task, end the context's life (popping it is not enough: a popped
 * context still exists and still holds its memory). Check the call.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "context_leak.h"

static bool create(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

bool do_task(CUdevice dev, const float *in, float *out, size_t n)
{
    CUcontext ctx = NULL;
    CUdeviceptr buf = 0;
    if (!create(&ctx, dev)) /* pushed: current from here on */
        return false;
    bool ok = checkDriver(cuMemAlloc(&buf, n * sizeof(float))) &&
              checkDriver(cuMemcpyHtoD(buf, in, n * sizeof(float))) &&
              checkDriver(cuMemcpyDtoH(out, buf, n * sizeof(float)));
    if (buf)
        ok = checkDriver(cuMemFree(buf)) && ok;

    /* FIXME goes here. */

    return ok;
}

# %% [markdown]
# # share_primary: a Driver API library that shares the runtime's context
#
# Your file is `library.c` (the only one graded): a small library written with the Driver API.
# The harness plays a runtime application: it calls `library_begin()`, allocates a buffer in the
# current context and fills it (the library's work), calls `library_end()`, then reads the
# buffer with the runtime. As given, the library makes a context of its own with `cuCtxCreate`:
# its buffer lives in a context the runtime never uses, and is freed when that context is
# destroyed at the end.
#
# What to do:
# - `FIXME 1` (in `library_begin`, line 23): work in the device's primary context, the one the
#   runtime uses: retain it (`cuDevicePrimaryCtxRetain`) and make it current
#   (`cuCtxPushCurrent`).
# - `FIXME 2` (in `library_end`, line 34): undo `library_begin` in reverse order: pop the
#   context, then release it (a retained primary context is released, never destroyed).
#
# Check every call. How it is graded: the library's context is the runtime's, the buffer belongs
# to it, the application reads the data with the runtime afterwards, the stack is the
# application's alone, no reference is left, and no context the library created is left. Grade
# it with `make check` from `02_driver_context/` (a GPU is needed).
# The application has a context of its own current when it calls the library: after `library_begin()`
# the primary context must be current over it (pushed, or set in its place), and after `library_end()`
# the context stack, the primary context's state and the current device must be exactly as
# `library_begin()` found them (a `cuCtxSetCurrent` never undone loses).

# %%
# %%writefile 02_driver_context/exercises/share_primary/library.c
/*
 * Exercise 2 - share_primary: a Driver API library that shares the runtime's context.
 *
 * This file is yours (the only one graded): a small "library" written with the Driver API.
 * The harness (harness/share_primary/) plays the application, which uses the runtime
 * (cudaSetDevice, cudaMemcpy): it calls library_begin(), allocates a buffer in the current
 * context and fills it (the library's work), calls library_end(), and then reads the buffer
 * with the runtime. As given, the library makes a context of its own with cuCtxCreate: its
 * buffer lives in a context the runtime never uses, and destroying that context at the end
 * frees the buffer under the application's feet.
 * FIXME 1 (library_begin): work in the device's primary context, the one the runtime uses:
 *        retain it (cuDevicePrimaryCtxRetain) and make it current (cuCtxPushCurrent).
 * FIXME 2 (library_end): undo library_begin in reverse order: pop the context, then release
 *        it (a retained primary context is released, never destroyed).
 * Check every call. The harness checks the library's context is the runtime's, the stack is
 * as the application left it, the data arrives, and no reference is left behind.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "share_primary.h"

bool library_begin(CUdevice dev, CUcontext *ctx)
{
    /* FIXME 1: replace this call. */
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)dev;
    /* FIXME 2: replace this line. */
    return checkDriver(cuCtxDestroy(ctx));
}

# %% [markdown]
# # stack_order: steer an allocation into the right context with the stack
#
# Your file is `stack_order.c` (the only one graded). The harness creates ctxA, then ctxB:
# `cuCtxCreate` pushes each new context, so the stack is `[ctxA ctxB]` and ctxB is current when
# it calls `allocate_in_a()`. As given, the buffer lands in ctxB.
#
# What to do, in `allocate_in_a()`:
# - `FIXME 1` (before the `cuMemAlloc`, line 23): make ctxA current, keeping ctxB alive (do not
#   destroy it). Check the call.
# - `FIXME 2` (after it, line 28): put ctxB back on top of ctxA, so that the stack is
#   `[ctxA ctxB]` again. Check the call.
#
# `cuCtxPushCurrent` adds an entry on top, `cuCtxPopCurrent` removes the top one,
# `cuCtxSetCurrent` replaces it. More than one pair of calls works; creating a context is
# refused here.
#
# How it is graded: the driver names ctxA as the buffer's owner, data copies through it, the
# whole stack afterwards reads ctxB on top of ctxA (no entry more, none less), and no device
# allocation of yours but that buffer is left alive. Grade it with `make check` from
# `02_driver_context/` (a GPU is needed); `./build/exercises/stack_order SEED` runs it by hand.
# The primary contexts' state and the current device must be as they were after `allocate_in_a()` too.
#
# Refused in your file (the grader stops before the link and says why):
# - `cuCtxCreate`: the exercise steers the allocation with the stack the harness made; a context of your own is refused (the README says so)
# - `cuCtxDestroy`: ctxB must stay alive (the README: do not destroy it), and ctxA is the harness's

# %%
# %%writefile 02_driver_context/exercises/stack_order/stack_order.c
/*
 * Exercise 1 - stack_order: steer an allocation into the right context with the stack.
 *
 * This file is yours (the only one graded). The harness (harness/stack_order/) creates ctxA,
 * then ctxB. cuCtxCreate pushes each new context, so the stack is [ctxA ctxB] and ctxB is
 * current when it calls allocate_in_a(). The buffer must belong to ctxA, and afterwards the
 * stack must be [ctxA ctxB] again, exactly as before (ctxB on top, ctxA below it). The harness
 * asks the driver which context owns the buffer and reads the whole stack.
 * As given, the buffer lands in ctxB. Fix it:
 * FIXME 1: make ctxA current, keeping ctxB alive (do not destroy it). Check the call.
 * FIXME 2: put ctxB back on top of ctxA. Check the call.
 * Think about what each call does to the stack: cuCtxPushCurrent adds an entry on top,
 * cuCtxPopCurrent removes the top one, cuCtxSetCurrent replaces the top one. More than one
 * pair of calls works; a pair that leaves an extra entry, or one too few, does not.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "stack_order.h"

bool allocate_in_a(CUcontext a, CUcontext b, CUdeviceptr *buf, size_t bytes)
{
    (void)a;
    (void)b;
    /* FIXME 1 goes here. */

    if (!checkDriver(cuMemAlloc(buf, bytes)))
        return false;

    /* FIXME 2 goes here. */
    return true;
}

# %% [markdown]
# # entry_point: reach the Driver API through the runtime
#
# Your file is `entry_point.c` (the only one graded). The harness is a runtime application that
# wants two Driver API functions without linking `-lcuda`, and asks the runtime for them with
# `cudaGetDriverEntryPointByVersion` (CUDA 12.5). As given, `get_mem_info()` asks for nothing,
# and `get_per_thread_copy()` asks for the wrong variant.
#
# What to do:
# - `FIXME 1` (in `get_mem_info`, line 27): get `"cuMemGetInfo"` in its `size_t` form, the one
#   CUDA 3.2 brought (`cudaVersion` 3020), with the default flag; check the call, and hand back
#   the query result it gives (its last argument).
# - `FIXME 2` (in `get_per_thread_copy`, line 36): get the per-thread-default-stream variant of
#   `"cuMemcpyAsync"` (`cudaVersion` 12000): pick the flag that asks for it. Check the call.
#
# How it is graded: each function asked the runtime (the calls are counted; looking the symbols
# up with `dlsym` is refused), the pointers are libcuda's `cuMemGetInfo_v2` and
# `cuMemcpyAsync_ptsz`, the pointer and query result you hand back are the ones the runtime
# returned, and `cuMemGetInfo` through yours gives the runtime's total. Built with a CUDA older
# than 12.5 the exercise is not graded ("needs CUDA 12.5+"), never failed. Grade it with
# `make check` from `02_driver_context/` (a GPU is needed).
# After the two calls the context stack, the primary context's state and the current device
# must be as they were.

# %%
# %%writefile 02_driver_context/exercises/entry_point/entry_point.c
/*
 * Exercise 4 - entry_point: reach the Driver API from a runtime program through the runtime.
 *
 * This file is yours (the only one graded). The application (the harness,
 * harness/entry_point/) uses the runtime. It wants two Driver API functions, and asks the
 * runtime for them with cudaGetDriverEntryPointByVersion (CUDA 12.5) instead of linking -lcuda.
 * As given, get_mem_info() asks for nothing, and get_per_thread_copy() asks for the wrong
 * variant.
 * FIXME 1 (get_mem_info): get "cuMemGetInfo" in its size_t form, the one CUDA 3.2 brought
 *        (cudaVersion 3020), with the default flag; check the call, and report the query
 *        result it gives back (its last argument).
 * FIXME 2 (get_per_thread_copy): get the per-thread-default-stream variant of "cuMemcpyAsync"
 *        (cudaVersion 12000): pick the flag that asks for it. Check the call.
 * The harness compares what you got with the symbols libcuda.so.1 exports, calls cuMemGetInfo
 * through your pointer, counts your calls of the runtime's query and checks that the pointers
 * and the query result you hand back are the ones it returned (looking the symbols up yourself
 * with dlsym is not the exercise: the grader refuses it). Built with a CUDA older than 12.5,
 * this exercise is not graded.
 * Grade it: make check   (from 02_driver_context/)
 */
#include "entry_point.h"

#if CUDA_VERSION >= 12050

bool get_mem_info(void **fn, enum cudaDriverEntryPointQueryResult *status)
{
    /* FIXME 1: replace these two lines. */
    *fn = NULL;
    *status = cudaDriverEntryPointSymbolNotFound;
    return true;
}

bool get_per_thread_copy(void **fn)
{
    enum cudaDriverEntryPointQueryResult status;
    /* FIXME 2: ask for the per-thread variant: the flag below asks for the legacy one. */
    return checkRuntime(cudaGetDriverEntryPointByVersion("cuMemcpyAsync", fn, 12000,
                                                         cudaEnableLegacyStream, &status));
}

#endif

# %% [markdown]
# ### Grade your exercises
#
# `make check` builds each exercise with its harness and runs its grader (it needs a GPU): points per exercise, all or nothing.

# %% language="bash"
# cd "$CUDA_LESSONS/02_driver_context" || exit 1
# log="$(mktemp)"
# make check 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # make check exits 0 when every exercise passed; 2 after a line naming the grader's own code:
# # 1 (some exercise has not passed yet: the table above gives the points), 77 (it cannot grade
# # here: no usable GPU). Neither stops the notebook; anything else does.
# if [ "$rc" -eq 0 ]; then echo "notebook: every exercise of 02_driver_context passed"
# elif grep -q 'exited 77' "$log"; then echo "notebook: cannot grade here (exit 77, accepted: no usable GPU)"
# elif grep -q 'bats is needed to grade' "$log"; then echo "notebook: make check needs bats with bats-assert and bats-support (Debian: apt-get install bats bats-assert bats-support)"; rm -f "$log"; exit 1
# elif grep -q 'exited 1 ' "$log"; then echo "notebook: not every exercise passes yet (the points above)"
# else echo "notebook: make check failed (exit $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"
