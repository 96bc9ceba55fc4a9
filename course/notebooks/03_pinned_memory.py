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
# # 03_pinned_memory: page-locked against pageable host memory, measured at the PCIe limit
#
#
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
LESSON = "03_pinned_memory"

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
# The GPU's copy engines move data between host RAM and GPU memory by **DMA**: they read and write
# host pages over PCIe themselves, without the CPU. That only works for pages that stay where they
# are, so the copy engines need **page-locked ("pinned")** host memory, pages the operating system
# may not swap out or move. Memory from `malloc` is **pageable**. Copy from it and the driver
# *stages* the data: the CPU copies it, chunk by chunk, into a pinned buffer of the driver's own,
# and the copy engine takes it from there.
#
#     pinned:    host buffer ==DMA==> GPU memory                    (the link's rate)
#     pageable:  host buffer --CPU memcpy--> driver's pinned buffer ==DMA==> GPU memory
#
# So the same call, `cudaMemcpyAsync`, is fast from pinned memory and slower from pageable memory,
# and from pageable memory it may hold the host until the staging is done, so the host cannot queue
# other work meanwhile. Pinned memory comes three ways: new (`cudaMallocHost`), new and not cached
# by the CPU (`cudaHostAlloc` with `cudaHostAllocWriteCombined`), or memory you already have, locked
# where it is (`cudaHostRegister`). Pinning is not free: the pages must be made real and locked, and
# locked memory is taken from the rest of the system.
#
# Why it matters: every program that moves data to a GPU chooses its host memory, and overlapping
# copies with kernels (lesson 04) starts here. The lesson measures each side: how much faster, what
# pinning costs, why pageable is slower, mapped ("zero-copy") memory, both directions at once, and
# the same through the Driver API, every copy's data checked.

# %% [markdown]
# ## Key concepts
#
# - Pageable memory (`malloc`) against page-locked, pinned memory (`cudaMallocHost`): the copy
#   engine reads and writes only the second directly.
# - Staging: a copy from or to pageable memory goes through the driver's own pinned buffer; the
#   call may wait for the stream and the staging ("API synchronization behavior").
# - Timing a copy with a pair of events in its stream: the GPU stamps each, so their difference is
#   the copy's own time, whatever the host did meanwhile.
# - Registering memory you already hold (`cudaHostRegister`) against copying it into new pinned
#   memory; write-combined memory (fast for the copy engine, slow for the CPU to read).
# - Mapped (zero-copy) memory: a kernel reads and writes pinned host memory over the link.
#
# CUDA APIs involved: `cudaMallocHost`, `cudaHostAlloc` (`cudaHostAllocWriteCombined`,
# `cudaHostAllocMapped`), `cudaHostRegister`, `cudaHostUnregister`, `cudaFreeHost`, `cudaMalloc`,
# `cudaMemcpyAsync`, `cudaStreamCreate`, `cudaEventCreate`, `cudaEventRecord`,
# `cudaEventSynchronize`, `cudaEventElapsedTime`, `cudaStreamSynchronize`,
# `cudaHostGetDevicePointer`, `cudaStreamWaitEvent`; the Driver API's `cuMemHostAlloc`
# (`CU_MEMHOSTALLOC_PORTABLE`, `_DEVICEMAP`, `_WRITECOMBINED`), `cuMemHostRegister`,
# `cuMemHostUnregister`, `cuMemFreeHost`, `cuMemHostGetFlags`, `cuMemcpyHtoDAsync`,
# `cuMemcpyDtoHAsync`.

# %% [markdown]
# ## The code
#
# `demo.c` is the idea on one page, in CUDA's own calls, each checked by `demo.h`'s
# `checkRuntime(op)`; `core.c` holds what the lesson's program measures, and `proof/` measures
# and judges ([IN_DEPTH.md](../../03_pinned_memory/IN_DEPTH.md), "Where is what in the code").
#
# The demo's round trip, the same for pageable and pinned memory: each copy between two events
# recorded in its stream, as NVIDIA's bandwidth sample times it.
# `demo.c:12-47`
# ```c
# /* The same round trip for both kinds of memory, each copy in stream s between two events, as
#  * NVIDIA's bandwidth sample times them (the GPU stamps an event when the stream reaches it):
#  * fill, a warm-up copy, the timed copy to the GPU, clear, the timed copy back, every word checked.
#  * ms: [to the GPU, back]. */
# static bool round_trip(uint32_t *host, void *dev, size_t bytes, cudaStream_t s, cudaEvent_t start,
#                        cudaEvent_t stop, float ms[2], size_t *wrong)
# {
#     for (size_t i = 0; i < bytes / 4; i++)
#         host[i] = (uint32_t)i * 2654435761u;
#     if (!checkRuntime(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice))) /* the warm-up */
#         return false;
#     if (!checkRuntime(cudaEventRecord(start, s)))
#         return false;
#     if (!checkRuntime(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)))
#         return false;
#     if (!checkRuntime(cudaEventRecord(stop, s)))
#         return false;
#     if (!checkRuntime(cudaEventSynchronize(stop)))
#         return false;
#     if (!checkRuntime(cudaEventElapsedTime(&ms[0], start, stop)))
#         return false;
#     memset(host, 0, bytes); /* so that only the copy back can bring the data home */
#     if (!checkRuntime(cudaEventRecord(start, s)))
#         return false;
#     if (!checkRuntime(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s)))
#         return false;
#     if (!checkRuntime(cudaEventRecord(stop, s)))
#         return false;
#     if (!checkRuntime(cudaEventSynchronize(stop)))
#         return false;
#     if (!checkRuntime(cudaEventElapsedTime(&ms[1], start, stop)))
#         return false;
#     for (size_t i = 0; i < bytes / 4; i++)
#         *wrong += host[i] != (uint32_t)i * 2654435761u;
#     return true;
# }
# ```
#
# Its `main` (`demo.c:49-88`) makes the two kinds of host memory (`malloc`, `cudaMallocHost`),
# runs the round trip on each (the only difference is where the host buffer comes from), prints
# both rates and claims that pinned is faster both ways and that the data came back intact.
#
# The lesson's program compares more kinds, all made in `core.c`: pageable, pinned,
# write-combined and registered memory for the sweep of step 2 (which times its copies with
# `core.c`'s `timed_copies`, the demo's calls for one copy or a batch), and mapped memory for
# step 5.
# `core.c:25-46`
# ```c
# /* New host memory of one kind. The page-locked kinds come from the CUDA runtime, which makes the
#  * pages real and locks them inside the call; pageable memory from the C library (page-aligned,
#  * as cudaHostRegister prefers), its pages made real at the first touch. Registered memory starts
#  * pageable: touched, then cudaHostRegister locks it where it is; host_free unregisters it.
#  * `flags`: cudaHostAlloc's or cudaHostRegister's beyond the kind's own (0, or mapped_alloc's). */
# cudaError_t host_alloc(enum kind k, size_t bytes, unsigned int flags, void **p)
# {
#     *p = NULL;
#     if (k == PINNED) /* cudaMallocHost is cudaHostAlloc with cudaHostAllocDefault */
#         return flags ? cudaHostAlloc(p, bytes, flags) : cudaMallocHost(p, bytes);
#     if (k == WRITE_COMBINED) /* pinned, and not cached by the CPU */
#         return cudaHostAlloc(p, bytes, cudaHostAllocWriteCombined | flags);
#     if (posix_memalign(p, 4096, bytes) != 0 || k == PAGEABLE)
#         return *p ? cudaSuccess : cudaErrorMemoryAllocation;
#     memset(*p, 0, bytes); /* registered: its pages made real, then locked where they are */
#     cudaError_t err = cudaHostRegister(*p, bytes, cudaHostRegisterDefault | flags);
#     if (err != cudaSuccess) {
#         free(*p);
#         *p = NULL;
#     }
#     return err;
# }
# ```
#
# `mapped_alloc` (`core.c:57-72`) makes the mapped kinds and asks `cudaHostGetDevicePointer` for
# their device address. `core.c` also holds `call_ms` (how long `cudaMemcpyAsync` keeps the host,
# step 4), the kernel over mapped memory (`mapped_pass`, step 5), both directions at once
# (`copy_both_ways`, step 6) and the Driver API's pinned memory (step 7).
#
# Build the demo by hand, from this folder alone (or `make demo`, which builds `build/demo`). It
# calls the Runtime API only, so it needs no `-lcuda`: on a machine without the driver it starts,
# and `demo.h` says why it cannot run (exit 77).
#
# ```sh
# nvcc -o demo demo.c
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
# An excerpt (`...` marks lines left out) of a run on an NVIDIA H200 (PCIe Gen5 x16), driver
# 580.159.04, CUDA 13.0, by the version before step 5 checked the registered addresses (two
# claims more now; IN_DEPTH.md annotates the whole output):
#
# ```
# 03_pinned_memory: how much faster are copies from page-locked (pinned) host memory?
# ...
#    host to device, GB/s: median of the repetitions (spread: (max-min)/median)
#          size  reps  pageable          pinned            write-combined    registered        pinned/pageable
#        64 MiB    16    8.0 (21%)        55.0 (1%)         54.9 (1%)         55.0 (1%)        6.9x
#       256 MiB     5    6.7 (22%)        55.3 (0%)         55.4 (0%)         55.3 (0%)        8.2x
# ...
#   [ok]   every copy delivered its data intact: 104 checks (4 kinds x 2 directions x 13 sizes), 0 wrong words
#   [ok]   pinned is faster than pageable at every size from 16 MiB up, both directions: at least 4.3x
#   [ok]   to the copy engine, registered memory is as fast as pinned within 10% and write-combined memory at least 90% as fast from 16 MiB up (median over the sizes: registered within 0.1%, write-combined at 100.0% or more of pinned)
# ...
#   [ok]   pinned copies of 256 MiB and more reach 87.6% to 87.7% of the link's theoretical rate (70-100% expected: packet headers, flow control and the packet size the host allows take 10-30%)
# ...
#   [ok]   pinning data you already hold in place costs less than moving it into a new pinned buffer: register + unregister 115.6 ms/GiB against cudaMallocHost + copy in + cudaFreeHost 985.0 ms/GiB (beyond the noise, 46.8)
# ...
#    pageable H2D: cudaMemcpyAsync returned after 40.330 ms (40330.4 us), the copy was done after 40.351 ms (99.9%)
# ...
#    pinned   H2D: cudaMemcpyAsync returned after 0.005 ms (4.8 us), the copy was done after 4.857 ms (0.1%)
# ...
#   [ok]   at 256 MiB, from pageable memory cudaMemcpyAsync returned only when the copy was (nearly) done: at 99.9% of it or later
#   [ok]   from pinned memory it returns at once: after 4.8 us at most, 0.10% of the copy's time
# ...
#   [ok]   the staged copy runs at the CPU's pace, not the link's: 76% of the faster memcpy, 12% of the pinned copy
# ...
#   [ok]   for one pass over the data, zero-copy is faster than copy in + kernel + copy out one after the other: 1.5x (its reads and writes use the link's two directions at once)
# ...
#   [ok]   with asyncEngineCount 3 the two directions run side by side: 1.83x one direction (up to 2x)
# ...
#   [ok]   the Driver API's copies run at the runtime's rate of this run: 0.99x to 1.00x of cudaMallocHost + cudaMemcpyAsync
#   [n/j]  under unified addressing a cuMemHostAlloc buffer of one device's context copies at pinned speed in another device's context, with CU_MEMHOSTALLOC_PORTABLE or without it - not judged here: one GPU is visible; this needs two
# ...
# RESULT: PASS - all 24 checks passed, 2 not judged
# ```
#
# Every `[ok]` compares figures of the same run; `[n/j]` is a claim this machine cannot judge, with
# the reason. `./build/pinned_memory --help` lists the options; `--csv sweep.csv` also writes the
# sweep, which `make chart CSV=sweep.csv` draws. IN_DEPTH.md: regimes to try, other machines.

# %% language="bash"
# cd "$CUDA_LESSONS/03_pinned_memory" || exit 1
# log="$(mktemp)"
# make run 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # The verdict, said once in a line tools and make run-notebooks read. Exit 77 (no usable GPU or
# # driver: make run says "could not run here") is accepted: nothing was judged, nothing failed.
# if [ "$rc" -eq 0 ] && grep -q '^RESULT: PASS' "$log"; then
#   echo "notebook verdict: 03_pinned_memory: PASS"
# elif [ "$rc" -eq 0 ] && grep -q 'could not run here (exit 77' "$log"; then
#   echo "notebook verdict: 03_pinned_memory: NO GPU (exit 77, accepted: the lines above say why)"
# else
#   echo "notebook verdict: 03_pinned_memory: FAIL (make run exited $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"

# %% [markdown]
# ## Exercises
#
# Each exercise is a folder in `exercises/` with the one file that is yours (the places to change
# marked `FIXME`, the task in its README.md); it builds as given. The grader's harness
# (`harness/NAME/`) calls your functions and times them in turn with references of its own.
# `make check` grades your work on a GPU (`make check SOLUTIONS=1`: the reference solutions).
#
# **`exercises/pin_it`**: the harness copies a 64 MiB `malloc` buffer to the device. In `pin()`,
# page-lock it where it is (`cudaHostRegister`); in `unpin()`, undo it before `free`. Graded: the
# buffer is page-locked after `pin()` and not after `unpin()`, the data arrives intact, and its
# copies run at least half way from the pageable rate to the `cudaMallocHost` rate of the same run.
#
# **`exercises/both_ways`**: a 128 MiB upload and download from pinned memory go into one stream,
# so they take turns. Put the download in a second stream that `both_ways_begin()` makes and
# `both_ways_end()` destroys. Graded: the data, nothing left behind, `both_ways_issue()` returning
# without waiting, and at least 3/4 of the gain the harness's own two streams get.
#
# **`exercises/driver_pinned`**: allocate the buffer with `cuMemHostAlloc(...,
# CU_MEMHOSTALLOC_PORTABLE)` and release it with `cuMemFreeHost`. Graded: the driver knows the
# buffer as its own portable page-locked memory and forgets it after `free_host()`, your calls are
# the Driver API's, an impossible size returns NULL, the data arrives intact, and the copies run at
# least half way from the pageable rate to the `cudaMallocHost` rate.
#
# Everything else (the idea in full, the annotated output, regimes, other machines, the chart, what
# to notice, where is what in the code): [IN_DEPTH.md](../../03_pinned_memory/IN_DEPTH.md).
#
# On Colab or in a local Jupyter: [this lesson as a notebook](../../course/notebooks/03_pinned_memory.ipynb)
# (the idea, the run and your exercises; the slides and a container: [the course kit](../../course/README.md)).
#
# In this notebook each exercise's file is the cell below its task: edit the cell, run it (`%%writefile` writes your file into the lesson's `exercises/` folder), then run the grading cell at the end, `make check`, which grades every exercise of the lesson.

# %% [markdown]
# # both_ways: copy to the device and back at the same time
#
# The harness (`harness/both_ways/`) has a 128 MiB upload and download from pinned memory. It calls
# `both_ways_begin()` once, `both_ways_issue()` in several rounds and `both_ways_end()` at the end.
# As given, both copies go into one stream, `w->s1`, so they take turns. A PCIe link carries both
# directions at once, and the GPU has separate copy engines for them (step 6 of the lesson).
#
# Your file: `both_ways.c` (the only one graded).
#
# - **FIXME 1** (`both_ways_begin()`, line 25): create a second stream, kept in `w->mine[0]`.
# - **FIXME 2** (`both_ways_issue()`, line 31): issue the device-to-host copy in that stream, so
#   that the two copies overlap.
# - **FIXME 3** (`both_ways_end()`, line 41): destroy what `both_ways_begin()` made.
#
# Check each call.
#
# How it is graded: both directions deliver their data, no stream or event you made is left,
# `both_ways_issue()` returns without waiting for its copies (it takes less than half the time until
# they are done), and your pair gains at least 3/4 of what the harness's own two streams gain over
# one direction after the other (not judged on a card whose copy engines cannot overlap the two
# directions).
# What your three functions make is counted by the driver itself, whatever API made it: a stream
# or event of the Driver API left alive is a leak too. Grade it from `03_pinned_memory/` with `make check` (a GPU is needed).
#
# Refused in your file (the grader stops before the link and says why):
# - `cudaDeviceSynchronize`: both_ways_issue returns without waiting (the grader times from the call until the device is idle)
# - `cudaStreamSynchronize`: both_ways_issue returns without waiting
# - `cudaMemcpy`: a copy that waits; the exercise issues both and returns

# %%
# %%writefile 03_pinned_memory/exercises/both_ways/both_ways.c
/*
 * Exercise 2 - both_ways: copy to the device and back at the same time.
 *
 * This file is yours (the only one graded). The harness (harness/both_ways/) has an upload and
 * a download of the same size from pinned memory; it calls both_ways_begin() once,
 * both_ways_issue() in several rounds, and both_ways_end() at the end. As given, both copies go
 * into ONE stream, w->s1, so the second waits for the first and the pair takes as long as the
 * two directions one after the other. A PCIe link carries both directions at once, and a GPU
 * with two or more copy engines (asyncEngineCount) runs the two copies side by side: the pair
 * then takes less time than one after the other, though not always half (step 6 of the lesson).
 * The harness times, from its own clock, each direction alone, both in two streams of its own
 * (what the copy engines allow on this card), and your both_ways_issue(), in turns.
 *   FIXME 1: in both_ways_begin(), create a second stream (keep it in w->mine[0]);
 *   FIXME 2: in both_ways_issue(), issue the device-to-host copy there, so that the two copies
 *            overlap;
 *   FIXME 3: in both_ways_end(), destroy what you created. Check each call.
 * Then your pair gains at least 3/4 of what the harness's own two streams gain, with the data
 * intact, and both_ways_issue() returns without waiting for its copies.
 * Grade it: make check   (from 03_pinned_memory/; README.md beside this file)
 */
#include "both_ways.h"

bool both_ways_begin(struct both_ways *w)
{
    (void)w;
    /* FIXME 1: a second stream, in w->mine[0]. */
    return true;
}

bool both_ways_issue(struct both_ways *w)
{
    /* FIXME 2: the device-to-host copy goes into your second stream, not w->s1. */
    return checkRuntime(
               cudaMemcpyAsync(w->dev_in, w->up, w->bytes, cudaMemcpyHostToDevice, w->s1)) &&
           checkRuntime(
               cudaMemcpyAsync(w->down, w->dev_out, w->bytes, cudaMemcpyDeviceToHost, w->s1));
}

bool both_ways_end(struct both_ways *w)
{
    (void)w;
    /* FIXME 3: destroy what both_ways_begin made. */
    return true;
}

# %% [markdown]
# # pin_it: page-lock memory you already have
#
# The harness (`harness/pin_it/`) copies a pageable buffer of about 64 MiB to the device. It calls
# your `pin()` before the copies and your `unpin()` before it gives the memory back. As given,
# nothing is pinned and the copies run at the pageable rate.
#
# Your file: `pin_it.c` (the only one graded).
#
# - **FIXME 1** (`pin()`, line 20): page-lock the buffer where it is, no new allocation and no copy:
#   `cudaHostRegister` (or the Driver API's `cuMemHostRegister`). Return whether it worked.
# - **FIXME 2** (`unpin()`, line 27): undo it with `cudaHostUnregister` (`cuMemHostUnregister`):
#   `free()` must never see pages the driver still has locked.
#
# Check each call (`checkRuntime`, `checkDriver`).
#
# How it is graded: the buffer's first and last bytes are page-locked after `pin()` and not after
# `unpin()`, the data arrives intact, and its copies run at least half way from the pageable rate to
# the `cudaMallocHost` rate of the same run, measured by the harness in turn with yours (not judged
# where pinned copies are no faster than pageable ones). Grade it from `03_pinned_memory/` with
# `make check` (a GPU is needed; `make check SOLUTIONS=1` grades the reference solutions).
# The buffer starts mid-page and its last byte lies past its last whole page (both drawn from the
# seed), so a registration rounded to whole pages inside the buffer misses it; the context, the
# primary context and the current device must be as they were after each call.
# The driver counts what you make, whatever API made it: one registration, released by `unpin()`.
# The grader also makes your driver calls fail, one at a time (`--fail-at N`: the Nth call that
# makes or releases something): the call that saw it must return false, and nothing may be left
# registered; no crash, no silent success.

# %%
# %%writefile 03_pinned_memory/exercises/pin_it/pin_it.c
/*
 * Exercise 1 - pin_it: page-lock memory you already have, and see the copy speed up.
 *
 * This file is yours (the only one graded). The harness (harness/pin_it/) has a pageable buffer
 * it copies to the device; it calls pin() before the copies and unpin() after them. It asks
 * the runtime whether the buffer's first and last bytes are page-locked, and times copies from
 * it against a pageable and a pinned (cudaMallocHost) buffer of the same run. As given, nothing
 * is pinned, and the copies run at the pageable rate.
 * FIXME 1: in pin(), page-lock the buffer in place (no new allocation, no copy): cudaHostRegister.
 * FIXME 2: in unpin(), undo it (cudaHostUnregister): free() must never see pages the driver still
 *          has locked.
 * Check each call. Grade it: make check   (from 03_pinned_memory/; README.md beside this file)
 */
#include "pin_it.h"

bool pin(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    /* FIXME 1: page-lock [p, p + bytes) where it is, and return whether that worked. */
    return true;
}

bool unpin(void *p)
{
    (void)p;
    /* FIXME 2: undo pin(), and return whether that worked. */
    return true;
}

# %% [markdown]
# # driver_pinned: pinned memory through the Driver API
#
# The harness (`harness/driver_pinned/`) gets a buffer from your `alloc_host()`, copies it to the
# device and compares the rate with a pageable and a `cudaMallocHost` buffer measured in turn in the
# same run (the runtime and the Driver API share the device's primary context, current when your
# functions are called). As given, the buffer comes from `malloc`, so its copies are staged through
# the driver's own buffer (step 4 of the lesson).
#
# Your file: `driver_pinned.c` (the only one graded).
#
# - **FIXME 1** (`alloc_host()`, line 22): allocate with `cuMemHostAlloc(..., CU_MEMHOSTALLOC_PORTABLE)`
#   (pinned for every context, as step 7 shows), checked with `checkDriver`; return NULL when it
#   fails.
# - **FIXME 2** (`free_host()`, line 28): release it with `cuMemFreeHost` instead of `free()`.
#
# How it is graded: the driver knows the buffer as its own page-locked, portable memory
# (`cuMemHostGetFlags`) and forgets it after `free_host()`, your host-memory calls are the Driver
# API's (counted: `cudaMallocHost` is not the exercise), `alloc_host()` of more than any machine has
# (4 EiB) returns NULL, the data arrives intact, and its copies run at least half way from the
# pageable rate to the `cudaMallocHost` rate. The driver counts what you make, whatever API made it: one
# page-locked buffer, given back by `free_host()`. The grader also makes your driver calls fail, one
# at a time (`--fail-at N`): `alloc_host()` must then return NULL (pageable memory from `malloc`
# instead hides the failure and loses) and `free_host()` false, leaving nothing behind. Grade it from `03_pinned_memory/` with `make check`
# (a GPU is needed).

# %%
# %%writefile 03_pinned_memory/exercises/driver_pinned/driver_pinned.c
/*
 * Exercise 3 - driver_pinned: pinned memory through the Driver API.
 *
 * This file is yours (the only one graded). The harness (harness/driver_pinned/) gets a buffer
 * from alloc_host(), copies it to the device, and compares the rate with a pageable and a
 * cudaMallocHost buffer measured in turns in the same run (the runtime and the Driver API share
 * the device's primary context, current when your functions are called). It asks the driver
 * what it knows of the buffer (cuMemHostGetFlags) before and after free_host(), and counts your
 * allocation calls. As given, the buffer comes from malloc: its copies are staged through the
 * driver's own buffer (step 4 of the lesson).
 *   FIXME 1: allocate it with cuMemHostAlloc instead (flag CU_MEMHOSTALLOC_PORTABLE: pinned for
 *            every context, as step 7 shows), checked with checkDriver.
 *   FIXME 2: release it with cuMemFreeHost instead of free().
 * Grade it: make check   (from 03_pinned_memory/; README.md beside this file)
 */
#include <stdlib.h>

#include "driver_pinned.h"

void *alloc_host(size_t bytes)
{
    /* FIXME 1: allocate with cuMemHostAlloc instead. */
    return malloc(bytes);
}

bool free_host(void *p)
{
    free(p); /* FIXME 2: memory from cuMemHostAlloc goes back with cuMemFreeHost. */
    return true;
}

# %% [markdown]
# ### Grade your exercises
#
# `make check` builds each exercise with its harness and runs its grader (it needs a GPU): points per exercise, all or nothing.

# %% language="bash"
# cd "$CUDA_LESSONS/03_pinned_memory" || exit 1
# log="$(mktemp)"
# make check 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # make check exits 0 when every exercise passed; 2 after a line naming the grader's own code:
# # 1 (some exercise has not passed yet: the table above gives the points), 77 (it cannot grade
# # here: no usable GPU). Neither stops the notebook; anything else does.
# if [ "$rc" -eq 0 ]; then echo "notebook: every exercise of 03_pinned_memory passed"
# elif grep -q 'exited 77' "$log"; then echo "notebook: cannot grade here (exit 77, accepted: no usable GPU)"
# elif grep -q 'bats is needed to grade' "$log"; then echo "notebook: make check needs bats with bats-assert and bats-support (Debian: apt-get install bats bats-assert bats-support)"; rm -f "$log"; exit 1
# elif grep -q 'exited 1 ' "$log"; then echo "notebook: not every exercise passes yet (the points above)"
# else echo "notebook: make check failed (exit $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"
