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
# # 01_hello_runtime: when does the CUDA runtime create a context?
#
# A first CUDA program, watched from the inside: when the GPU state your program needs appears,
# which call creates it, and how a kernel launched from C reports its errors.
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
LESSON = "01_hello_runtime"

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
# Every piece of GPU work runs inside a **context**: the driver's record of one process's state on
# one GPU (its allocations, loaded kernels, streams). The Driver API (`cu*`) makes you create
# contexts yourself. The Runtime API (`cuda*`), the one most programs use, does it for you, and
# *lazily*: nothing exists until a call needs it.
#
# ```
# cuCtxGetCurrent(&ctx)        -> CUDA_ERROR_NOT_INITIALIZED   nothing yet, not even the driver
# cudaGetDeviceCount(&n)       -> the driver starts, still no context
# cudaSetDevice(0)             -> device 0's primary context is created and made current
# cuDevicePrimaryCtxRetain()   -> the very same context, seen through the Driver API
# ```
#
# The context the runtime makes is the device's **primary context**: one per device per process,
# shared by everything in the process that uses the runtime, and by the Driver API. Being
# *current* is a matter of each host thread: a new thread starts with none.
#
# Why it matters: the first call that needs a context pays for creating it, so a benchmark must
# warm up first; a library that shares the primary context must give back exactly what it took;
# and a kernel launch returns no error code, so you must ask for it. This lesson shows each of
# these on your GPU and checks every claim it prints.

# %% [markdown]
# ## Key concepts
#
# - **Context**: the driver's per-process, per-GPU state; every allocation and kernel lives in one.
# - **Primary context**: the one context per device that the runtime uses; the Driver API reaches
#   it with `cuDevicePrimaryCtxRetain` and counts references to it.
# - **Current context**: per host thread; the runtime's first call that needs a context makes the
#   primary context current on the calling thread.
# - **Lazy initialisation**: queries (device count, properties) start the driver but no context;
#   `cudaSetDevice` (since CUDA 12.0), `cudaFree(0)`, `cudaMalloc` and launches start one.
# - **Launch errors and faults**: a bad launch shows at once in `cudaGetLastError`; a fault inside a
#   running kernel shows at the next synchronisation and stays (it is *sticky*). `checkRuntime(op)`
#   and `checkDriver(op)` (`demo.h`; `../common/check.h` for the lesson's program) print the file,
#   line, call and error.
#
# CUDA APIs involved: `cudaGetDeviceCount`, `cudaSetDevice`, `cudaFree`, `cudaInitDevice`,
# `cudaMalloc`, `cudaMemcpy`, `cudaGetLastError`, `cudaDeviceSynchronize`, `cudaDeviceReset`,
# `cudaSetDeviceFlags`, `cuCtxGetCurrent`, `cuDevicePrimaryCtxGetState`,
# `cuDevicePrimaryCtxRetain`, `cuDevicePrimaryCtxRelease`, `cuDevicePrimaryCtxReset`,
# `cuDevicePrimaryCtxSetFlags`, `cuCtxGetApiVersion`, `cuPointerGetAttribute`.

# %% [markdown]
# ## The code
#
# `demo.c` is the lesson on one page, in CUDA's own calls, each checked by `demo.h`'s
# `checkRuntime(op)` / `checkDriver(op)` (they print the file, line, call and error, and yield
# false). `core.c` holds the same moments for the lesson's program, and `proof/` is the instrument
# that runs every step, watches the driver and checks each claim (IN_DEPTH.md, "Where is what").
#
# The story in three moments: before any call, after the runtime's first call, after the first
# call that needs a context. Read a query's result before its output argument: before the driver
# is initialised `cuCtxGetCurrent` fails and leaves `ctx` as it was (the marker).
# `demo.c:17-53`
# ```c
# static bool contexts(void)
# {
#     CUcontext ctx = (CUcontext)(uintptr_t)0x5eed, primary = NULL; /* a marker: was ctx written? */
#     CUdevice dev;
#     unsigned int flags;
#     int count = 0, active = -1;
#     CUresult before = cuCtxGetCurrent(&ctx);       /* 1. no CUDA call yet */
#     if (!checkRuntime(cudaGetDeviceCount(&count))) /* 2. the runtime's first call */
#         return false;
#     printf("before any CUDA call:     cuCtxGetCurrent -> %s\n",
#            before == CUDA_ERROR_NOT_INITIALIZED ? "CUDA_ERROR_NOT_INITIALIZED" : "another result");
#     claim(before == CUDA_ERROR_NOT_INITIALIZED && ctx == (CUcontext)(uintptr_t)0x5eed,
#           "no context before the first CUDA call");
#     if (!checkDriver(cuCtxGetCurrent(&ctx)))
#         return false;
#     if (!checkDriver(cuDeviceGet(&dev, 0)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)))
#         return false;
#     printf("after cudaGetDeviceCount: %d device(s), current context %s, primary active = %d\n",
#            count, ctx ? "not NULL" : "NULL", active);
#     claim(!ctx && !active, "cudaGetDeviceCount initialised the driver and made no context");
#     if (!checkRuntime(cudaSetDevice(0))) /* 3. the first call that needs a context */
#         return false;
#     if (!checkDriver(cuCtxGetCurrent(&ctx)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxRetain(&primary, dev)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxRelease(dev)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)))
#         return false;
#     printf("after cudaSetDevice(0):   current %p, cuDevicePrimaryCtxRetain %p, active = %d\n",
#            (void *)ctx, (void *)primary, active);
#     return claim(ctx && ctx == primary && active == 1,
#                  "cudaSetDevice made the device's primary context current");
# }
# ```
#
# Then a kernel launched from C (`add_one`, `demo.c:55-73`): C has no `<<<>>>`, so
# `launch_add_one` is a small `extern "C"` launcher in `kernel.cu`. The launch returns nothing:
# `cudaGetLastError` right after it is the check of the launch, `cudaDeviceSynchronize` the check
# of the kernel's run; `main` verifies every element on the host.
#
# Build the demo by hand, from this folder alone (or `make demo`, which builds `build/demo`). It
# calls the Driver API, so it links `libcuda` (`-lcuda`): on a machine without the NVIDIA driver
# the system's loader stops it before `main` (`libcuda.so.1: cannot open shared object file`),
# where `make run` says why and exits 77.
#
# ```sh
# nvcc -o demo demo.c kernel.cu -lcuda
# ./demo
# ```

# %% [markdown]
# ## Run it
#
# The lesson's program, built and run here (`make run` in its folder). Without a usable GPU it stops at its first CUDA call with exit 77 and says why: the cell accepts that and says so. On a GPU it ends with one verdict line. What it printed where the README was written:
#
# ```sh
# make run
# ```
#
# Steps 1 to 3 and the verdict of a run of this version on an NVIDIA H200 (driver 580.159.04,
# CUDA 13.0); `...` marks lines left out; every line of every step is annotated in IN_DEPTH.md:
#
# ```
# 1. Before any CUDA call
#    cuCtxGetCurrent(&ctx) -> CUDA_ERROR_NOT_INITIALIZED (3); ctx still holds our marker 0x5eed
#    (a common example prints "(nil)" here: it sets ctx to NULL and ignores the result)
#   [ok]   the driver is not initialised before the first CUDA call
#
# 2. cudaGetDeviceCount: the runtime's first call
#    cudaGetDeviceCount -> 1 device(s)
#    cuCtxGetCurrent -> CUDA_SUCCESS, ctx = NULL
#    cuDevicePrimaryCtxGetState(device 0) -> active = 0
#   [ok]   cudaGetDeviceCount initialised the driver (cuCtxGetCurrent now succeeds)
#   [ok]   no context is current yet
#   [ok]   the primary context of device 0 is not active yet
# ...
# 3. cudaSetDevice(0): the first call that needs a context
#    device 0: "NVIDIA H200", compute capability 9.0
#    cudaSetDevice took 106.0 ms (it created the context: the cost of the first call)
#    cuCtxGetCurrent            -> 0x55d15d61a730
#    cuDevicePrimaryCtxRetain   -> 0x55d15d61a730
#    cuDevicePrimaryCtxGetState -> active = 1
#   [ok]   cudaSetDevice made a context current
#   [ok]   it is the device's primary context, the one cuDevicePrimaryCtxRetain returns
#   [ok]   the primary context is now active
# ...
# RESULT: PASS - all 37 checks passed
# ```
#
# Exit status: 0 every check passed, 1 a check or a CUDA call failed, 2 bad command line, 77 no
# usable GPU or driver here (the message says why and what to do).

# %% language="bash"
# cd "$CUDA_LESSONS/01_hello_runtime" || exit 1
# log="$(mktemp)"
# make run 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # The verdict, said once in a line tools and make run-notebooks read. Exit 77 (no usable GPU or
# # driver: make run says "could not run here") is accepted: nothing was judged, nothing failed.
# if [ "$rc" -eq 0 ] && grep -q '^RESULT: PASS' "$log"; then
#   echo "notebook verdict: 01_hello_runtime: PASS"
# elif [ "$rc" -eq 0 ] && grep -q 'could not run here (exit 77' "$log"; then
#   echo "notebook verdict: 01_hello_runtime: NO GPU (exit 77, accepted: the lines above say why)"
# else
#   echo "notebook verdict: 01_hello_runtime: FAIL (make run exited $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"

# %% [markdown]
# ## Exercises
#
# Each exercise is a folder in `exercises/` with one file that is yours and a README.md with the
# task; a `FIXME` marks each place you change. Grade them with `make check` (it needs a GPU;
# `make check SOLUTIONS=1` grades the reference solutions in `solutions/`). 10 points each.
#
# **`exercises/first_context/`**: in `first_context.c`, `make_context()` makes the one runtime call
# that creates device 0's primary context, and `primary_context()` gets the same context through
# the Driver API and gives back its reference (steps 2 and 3).
#
# **`exercises/check_launch/`**: in `check_launch.c`, `scale_on_device()` launches a kernel but
# never checks the launch; check it so that a failed launch is reported with its own error and
# nothing is copied back (step 5).
#
# **`exercises/thread_context/`**: in `thread_context.c`, `bind_worker()` runs on a new thread
# with no current context; make main's context current there, the runtime way or the driver way
# (step 7).
#
# **`exercises/library_shutdown/`**: in `library.c`, a library that shares the primary context
# "cleans up" with `cudaDeviceReset()` and destroys the application's memory; make
# `lib_shutdown()` undo `lib_init()` and nothing more (step 8).
#
# Every step's output annotated, the regimes, other machines, the CUDA environment variables and
# process limits, how grading works, where everything is in the code: [IN_DEPTH.md](../../01_hello_runtime/IN_DEPTH.md).
#
# On Colab or in a local Jupyter: [this lesson as a notebook](../../course/notebooks/01_hello_runtime.ipynb)
# (the idea, the run and your exercises; the slides and a container: [the course kit](../../course/README.md)).
#
# In this notebook each exercise's file is the cell below its task: edit the cell, run it (`%%writefile` writes your file into the lesson's `exercises/` folder), then run the grading cell at the end, `make check`, which grades every exercise of the lesson.

# %% [markdown]
# # Exercise check_launch: a kernel launch fails silently unless you ask
#
# Your file is `check_launch.c` (the only one graded). `scale_on_device()` copies the data in,
# launches the kernel, and copies it back, but never checks the launch.
#
# - **FIXME**, in `scale_on_device()` (line 28), right after `launch_scale(...)`: check the launch
#   the way step 5 of the lesson does, so that a failed launch's own error is handed to
#   `checkRuntime`, nothing is copied back (your host array stays as it was), the device buffer is
#   freed, and the function returns false.
#
# How it is graded: right results for four sizes and block sizes; for a launch of 2048 threads per
# block, and for one the harness's launcher makes fail whatever the arguments, the function must
# return false, copy nothing back, and hand that launch's error to `checkRuntime`; no device
# buffer of yours may be alive at the end. `cudaGetLastError` and `cudaPeekAtLastError` both do.
# `host[]` ends where a page that cannot be touched begins, so a copy past its `n` floats (a size
# rounded up to whole blocks) stops the program; the context, the primary context and the current
# device must be as they were after every call.
#
# Grade it from `01_hello_runtime/` with `make check` (it needs a GPU).
#
# Refused in your file (the grader stops before the link and says why):
# - `cudaDeviceReset`: it would end the context the harness checks your buffers in

# %%
# %%writefile 01_hello_runtime/exercises/check_launch/check_launch.c
/*
 * Exercise 2 - check_launch: a kernel launch fails silently unless you ask.
 *
 * This file is yours (the only one graded). The harness (harness/check_launch/) calls
 * scale_on_device() on fresh data with several sizes and block sizes, and on launches that
 * fail: 2048 threads per block (more than any GPU allows), and a launch that the harness's
 * launcher makes fail whatever the arguments. As given, a failed launch goes unnoticed: the
 * data is copied back unchanged and the function says all went well.
 * FIXME: right after launch_scale(...), check the launch the way lesson step 5 does, so that a
 * failed launch's own error is handed to checkRuntime (which prints the file, line, error name
 * and message on stderr; the harness sees the error handed over, not the text), nothing is
 * copied back (host[] stays as it was), the buffer is freed and the function returns false.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include "check_launch.h"

bool scale_on_device(float *host, int n, float factor, int threads_per_block)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dev = NULL;
    bool ok = false;
    if (!checkRuntime(cudaMalloc((void **)&dev, bytes)))
        return false;
    if (!checkRuntime(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)))
        goto cleanup;

    launch_scale(dev, n, factor, threads_per_block);
    /* FIXME: check the launch here: its own error to checkRuntime, then goto cleanup. */

    ok = checkRuntime(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
cleanup:
    ok = checkRuntime(cudaFree(dev)) && ok;
    return ok;
}

# %% [markdown]
# # Exercise first_context: create the primary context, then name it
#
# Your file is `first_context.c` (the only one graded). The harness counts the devices first,
# which initialises the driver and creates no context, then calls your two functions.
#
# - **FIXME 1**, in `make_context()` (line 19): make the one runtime call that creates device 0's
#   primary context and makes it current on this thread (step 3 of the lesson), checked with
#   `checkRuntime`.
# - **FIXME 2**, in `primary_context()` (line 28): set `*primary` to device 0's primary context
#   through the Driver API, and give back the reference you took.
#
# How it is graded: the harness asks the driver itself which context is current (it must be the
# primary context, one deep on the context stack), copies data through it, compares it with what
# `primary_context()` named, and checks that no reference to the primary context is left beyond
# the runtime's own. Creating a context of your own (`cuCtxCreate`) is refused.
# After each of your functions the harness also reads back the context stack, every device's primary
# context (active, flags) and the current device: `make_context()` must leave the primary context
# current and nothing else changed, and `primary_context()`, called while a context of the harness's
# is current, must change nothing at all (a `cudaSetDevice` or `cuCtxSetCurrent` there loses).
#
# Grade it from `01_hello_runtime/` with `make check` (it needs a GPU).
#
# Refused in your file (the grader stops before the link and says why):
# - `cuCtxCreate`: the exercise is about the primary context; a context of your own is lesson 02's (and the harness reads which context is current)
# - `cuCtxDestroy`: the exercise is about the primary context, which is released, never destroyed

# %%
# %%writefile 01_hello_runtime/exercises/first_context/first_context.c
/*
 * Exercise 1 - first_context: create the primary context with the runtime, then name it.
 *
 * This file is yours (the only one graded). The harness (harness/first_context/) counts the
 * devices, which initialises the driver but creates no context, then calls the two functions
 * below and looks at the driver's state itself: which context is current, how deep the
 * context stack is, which context primary_context() named, and whether every reference to
 * the primary context taken here was given back.
 *   FIXME 1: in make_context(), the ONE runtime call that creates device 0's primary context
 *           and makes it current on this thread (step 3 of the lesson). Check it.
 *   FIXME 2: in primary_context(), set *primary to device 0's primary context with the Driver
 *           API, and give back the reference you took.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include "first_context.h"

bool make_context(void)
{
    /* FIXME 1: the one runtime call that starts device 0's primary context, checked. */
    return true;
}

bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    if (!checkDriver(cuDeviceGet(&dev, 0)))
        return false;
    /* FIXME 2: retain the primary context into *primary, then release that reference. */
    *primary = NULL;
    return true;
}

# %% [markdown]
# # Exercise thread_context: a context is current per host thread
#
# Your file is `thread_context.c` (the only one graded). The harness makes device 0's primary
# context current on main's thread, starts a worker thread and calls `bind_worker()` there; a new
# thread starts with no current context (step 7 of the lesson).
#
# - **FIXME**, in `bind_worker()` (line 20): make main's context current on this thread, the
#   runtime way (select the device in this thread) or the driver way (make `main_ctx` current
#   here), and check the call.
#
# How it is graded: on the worker, the harness asks the driver which context is current (main's,
# one deep on the stack), copies data through it, and at the end checks that no reference to the
# primary context was left behind. Creating a context (`cuCtxCreate`) is refused.
# Right after `bind_worker()` the worker's whole stack must be main's context alone, with the primary
# context's state and the current device unchanged.
#
# Grade it from `01_hello_runtime/` with `make check` (it needs a GPU).
#
# Refused in your file (the grader stops before the link and says why):
# - `cuCtxCreate`: the exercise is about the primary context; a context of your own is lesson 02's (and the harness reads which context is current)
# - `cuCtxDestroy`: the exercise is about the primary context, which is released, never destroyed

# %%
# %%writefile 01_hello_runtime/exercises/thread_context/thread_context.c
/*
 * Exercise 3 - thread_context: a context is current per host thread.
 *
 * This file is yours (the only one graded). The harness (harness/thread_context/) makes device
 * 0's primary context current on main's thread, starts a worker thread and calls bind_worker()
 * there. A new thread starts with no current context, so as given the worker has none. Then the
 * harness asks the driver, on the worker: which context is current, how deep its context stack
 * is (one entry), and it copies data through that context; at the end it checks that no
 * reference to the primary context was left behind.
 * FIXME: bind main's context to this thread. There are two ways; either passes: the runtime way
 * (select the device in this thread) or the driver way (make main_ctx current here). Check the
 * call.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include "thread_context.h"

bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    /* FIXME: make main_ctx current here (the runtime way or the driver way), checked. */
    return true;
}

# %% [markdown]
# # Exercise library_shutdown: give back exactly what you took
#
# Your file is `library.c` (the only one graded): a library that shares the primary context
# through the Driver API. `lib_init()` retains device 0's primary context and allocates a
# workspace in it. The given `lib_shutdown()` "cleans up" with `cudaDeviceReset()`, which destroys
# the application's buffer too (step 8 of the lesson shows why).
#
# - **FIXME**, in `lib_shutdown()` (line 30): undo `lib_init()` and nothing more: free the
#   workspace and give back the library's reference to the primary context, checking each call.
#
# How it is graded: the harness plays the application (a `cudaMalloc` buffer with fresh data); after
# `lib_init()` and `lib_shutdown()` its data must survive, the workspace must be freed with no
# device allocation of the library's left alive, the context stack must be as the application
# left it, and the library must leave no reference behind.
# During both calls the application has a context of its own current, above the runtime's: after each,
# the harness reads back the whole context stack, the primary context's state and the current device,
# which must be as they were (a library that sets its context current without putting the caller's
# back, or pops a context it did not push, loses).
#
# Grade it from `01_hello_runtime/` with `make check` (it needs a GPU).
#
# Refused in your file (the grader stops before the link and says why):
# - `cuCtxCreate`: the exercise is about the primary context; a context of your own is lesson 02's (and the harness reads which context is current)
# - `cuCtxDestroy`: the exercise is about the primary context, which is released, never destroyed

# %%
# %%writefile 01_hello_runtime/exercises/library_shutdown/library.c
/*
 * Exercise 4 - library_shutdown: a library that borrows the primary context gives back
 * exactly what it took, and nothing more (step 8 of the lesson).
 *
 * This file is yours (the only one graded): a library that uses the Driver API. lib_init()
 * retains device 0's primary context (the runtime's own) and allocates a workspace in it. The
 * harness (harness/library_shutdown/) plays the application: it uses the runtime
 * (cudaSetDevice, a cudaMalloc buffer holding fresh data), calls lib_init() and lib_shutdown(),
 * then checks that its buffer still holds its data, that the workspace is freed, that the
 * context stack is as it was, and that the library left no reference to the primary context
 * behind. As given, lib_shutdown() "cleans up" with cudaDeviceReset(), which destroys the
 * application's buffer as well.
 * FIXME: rewrite lib_shutdown() so that it frees the library's workspace and gives back the
 *       library's reference to the primary context, checking each call.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include "library_shutdown.h"

bool lib_init(struct library *lib)
{
    return checkDriver(cuDeviceGet(&lib->dev, 0)) &&
           checkDriver(cuDevicePrimaryCtxRetain(&lib->ctx, lib->dev)) &&
           checkDriver(cuCtxPushCurrent(lib->ctx)) &&
           checkDriver(cuMemAlloc(&lib->workspace, LIBRARY_WORKSPACE_BYTES)) &&
           checkDriver(cuCtxPopCurrent(NULL));
}

bool lib_shutdown(struct library *lib)
{
    /* FIXME: undo lib_init() and nothing more: free the workspace, release the reference. */
    (void)lib;
    return checkRuntime(cudaDeviceReset());
}

# %% [markdown]
# ### Grade your exercises
#
# `make check` builds each exercise with its harness and runs its grader (it needs a GPU): points per exercise, all or nothing.

# %% language="bash"
# cd "$CUDA_LESSONS/01_hello_runtime" || exit 1
# log="$(mktemp)"
# make check 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # make check exits 0 when every exercise passed; 2 after a line naming the grader's own code:
# # 1 (some exercise has not passed yet: the table above gives the points), 77 (it cannot grade
# # here: no usable GPU). Neither stops the notebook; anything else does.
# if [ "$rc" -eq 0 ]; then echo "notebook: every exercise of 01_hello_runtime passed"
# elif grep -q 'exited 77' "$log"; then echo "notebook: cannot grade here (exit 77, accepted: no usable GPU)"
# elif grep -q 'bats is needed to grade' "$log"; then echo "notebook: make check needs bats with bats-assert and bats-support (Debian: apt-get install bats bats-assert bats-support)"; rm -f "$log"; exit 1
# elif grep -q 'exited 1 ' "$log"; then echo "notebook: not every exercise passes yet (the points above)"
# else echo "notebook: make check failed (exit $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"
