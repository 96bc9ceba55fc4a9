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
# # 05_ptx_module: kernels as PTX, loaded and launched through the Driver API
#
# The GPU code of a program need not be compiled into it: here the program loads it as text.
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
LESSON = "05_ptx_module"

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
# nvcc can stop half way: `nvcc -ptx kernels.cu` writes **PTX**, the GPU's virtual instruction
# set, as plain text. PTX runs on no GPU as it is; the NVIDIA driver compiles it for the card in
# hand (a **JIT**, just in time) when a program loads it. The CUDA Driver API lets a program do
# that by hand, in three calls:
#
# ```
# kernels.cu --nvcc -ptx--> kernels.ptx (text)
#     cuModuleLoadData(&mod, ptx)              the driver compiles it for this GPU: a module
#     cuModuleGetFunction(&f, mod, "axpy")     a kernel of the module, by its name
#     cuLaunchKernel(f, grid, block, ..., args) run it
# ```
#
# Why it matters: a program that carries PTX runs on GPUs newer than itself (the driver compiles
# for them), a program can load kernels chosen at run time, and one that writes CUDA C++ at run
# time can compile it with **NVRTC** and load the result the same way. The same road also takes
# a **cubin** (machine code, SASS, for one GPU architecture: no JIT) or a **fatbin** (SASS for
# several and PTX), and since CUDA 12.0 a **library** loads once for every context.
#
# This lesson loads a two-kernel file each of those ways, times what the JIT costs, launches
# `axpy` (`y = a * x + y`) with `cuLaunchKernel`, and checks every result on the host.

# %% [markdown]
# ## Key concepts
#
# - **PTX and SASS**: PTX is text for a virtual GPU; SASS is one architecture's machine code. The
#   driver's JIT turns PTX into SASS at load time, and caches what it compiled.
# - **Module**: what `cuModuleLoad*` gives, loaded into the current context; a **function** in it
#   is found by the name its PTX gives (`extern "C"` keeps that name plain).
# - **Launch arguments**: `cuLaunchKernel` takes a pointer to each argument (`kernelParams`), or
#   one packed buffer (`extra`).
# - **NVRTC**: CUDA C++ compiled to PTX (or a cubin) inside the running program.
# - **Library**: `cuLibraryLoadData` loads once for every context; its `CUkernel` belongs to none.
#
# CUDA APIs involved:
# - Driver API: `cuModuleLoad`, `cuModuleLoadData`, `cuModuleLoadDataEx` (JIT options),
#   `cuModuleGetFunction`, `cuFuncGetAttribute`, `cuLaunchKernel`, `cuModuleUnload`,
#   `cuLibraryLoadData`, `cuLibraryGetKernel`, `cuKernelGetFunction`, `cuStreamBeginCapture`,
#   `cuGraphLaunch`, `cuGreenCtxCreate`
# - NVRTC: `nvrtcCreateProgram`, `nvrtcCompileProgram`, `nvrtcGetPTX`, `nvrtcGetCUBIN`
# - Runtime API: `cudaLibraryLoadData`, `cudaLibraryGetKernel`, `cudaLaunchKernel`,
#   `cudaGetFuncBySymbol`, `cudaGetKernel`

# %% [markdown]
# ## The code
#
# `demo.c` is the idea on one page, each CUDA call on a line of its own, checked (`demo.h`). Build
# it from this folder alone and run it on the PTX (`make demo`: `build/demo`, the same way):
#
# ```sh
# nvcc -ptx -o kernels.ptx kernels.cu && nvcc -o demo demo.c -lcuda
# ./demo kernels.ptx
# ```
#
# `main` reads `kernels.ptx` into memory (a C string). The primary context made current, the text
# is loaded: there the driver's JIT compiles it for this card. The kernel is found by its
# `extern "C"` name, and the SASS the driver made is compared with the card's compute capability:
#
# `demo.c:19-49`
# ```c
# /* The device's primary context made current; the PTX loaded into it, which is when the driver's
#  * JIT compiles it for this GPU; `axpy` found in it by its name; the SASS it runs as, against the
#  * GPU's compute capability. */
# static bool load(void)
# {
#     int ptx_version = 0, sass_version = 0, maj = 0, min = 0;
#     if (!checkDriver(cuInit(0)))
#         return false;
#     if (!checkDriver(cuDeviceGet(&dev, 0)))
#         return false;
#     if (!checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)))
#         return false;
#     if (!checkDriver(cuCtxSetCurrent(ctx)))
#         return false;
#     if (!checkDriver(cuModuleLoadData(&mod, ptx))) /* the JIT compiles it, here */
#         return false;
#     if (!checkDriver(cuModuleGetFunction(&axpy, mod, "axpy"))) /* its extern "C" name */
#         return false;
#     if (!checkDriver(cuFuncGetAttribute(&ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION, axpy)))
#         return false;
#     if (!checkDriver(cuFuncGetAttribute(&sass_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION, axpy)))
#         return false;
#     if (!checkDriver(cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)))
#         return false;
#     if (!checkDriver(cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))
#         return false;
#     printf("axpy: PTX version %d, SASS for sm_%d; the GPU: compute capability %d.%d\n", ptx_version,
#            sass_version, maj, min);
#     return claim(sass_version == 10 * maj + min,
#                  "cuModuleLoadData compiled the PTX into this GPU's own SASS");
# }
# ```
#
# The launch: `cuLaunchKernel` takes a pointer to each parameter of `axpy(float a, const float *x,
# float *y, int n)`, each at a value of exactly that parameter's type (the driver copies the
# parameter's size from each address). `main` then checks every element of `y` on the host:
#
# `demo.c:51-71`
# ```c
# /* y = 2 * x + y on the GPU: the data in, one cuLaunchKernel with a pointer to each argument, the
#  * result out (main frees the buffers). */
# static bool run_axpy(void)
# {
#     float a = 2.0f;
#     int n = N;
#     void *args[] = {&a, &dx, &dy, &n}; /* axpy(float a, const float *x, float *y, int n) */
#     if (!checkDriver(cuMemAlloc(&dx, sizeof x)))
#         return false;
#     if (!checkDriver(cuMemAlloc(&dy, sizeof y)))
#         return false;
#     if (!checkDriver(cuMemcpyHtoD(dx, x, sizeof x)))
#         return false;
#     if (!checkDriver(cuMemcpyHtoD(dy, y, sizeof y)))
#         return false;
#     if (!checkDriver(cuLaunchKernel(axpy, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL)))
#         return false;
#     if (!checkDriver(cuCtxSynchronize()))
#         return false;
#     return checkDriver(cuMemcpyDtoH(y, dy, sizeof y));
# }
# ```
#
# `core.c` holds the calls the lesson's program (`proof/`) makes that take more than one line,
# each step calling them. The same launch through `extra`: one buffer laid out as the parameter
# list, whose size is the end of `n` (28), not `sizeof` the struct (32):
#
# `core.c:64-74`
# ```c
# /* The same through `extra`: the parameters packed into one buffer (struct axpy_args), and its
#  * size, which is the end of the last parameter, not sizeof the struct. */
# CUresult launch_axpy_with_extra(CUfunction f, float a, CUdeviceptr x, CUdeviceptr y, int n)
# {
#     struct axpy_args args = {a, x, y, n};
#     size_t size = offsetof(struct axpy_args, n) + sizeof args.n; /* 28, not sizeof args (32) */
#     void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
#                      CU_LAUNCH_PARAM_END};
#     unsigned grid = (n + BLOCK - 1) / BLOCK;
#     return cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, NULL, extra);
# }
# ```
#
# NVRTC: CUDA C++ source in, PTX out, inside the running program (`nvrtc_output`, below it, reads
# the PTX with `nvrtcGetPTX` and, for `sm_XX`, the cubin with `nvrtcGetCUBIN`):
#
# `core.c:76-89`
# ```c
# /* ---- 4. NVRTC: PTX made at run time ---------------------------------------------------- */
# /* CUDA C++ source text compiled inside the running program; `name` is the file name its
#  * messages give. --gpu-architecture=compute_XX makes PTX, sm_XX SASS for that card too (a
#  * cubin). Returns the compile's result; *prog is NULL when the program was not even made. */
# nvrtcResult nvrtc_compile(nvrtcProgram *prog, const char *source, const char *name,
#                           const char *arch_opt)
# {
#     *prog = NULL;
#     nvrtcResult r = nvrtcCreateProgram(prog, source, name, 0, NULL, NULL);
#     if (r != NVRTC_SUCCESS)
#         return r;
#     const char *opts[] = {arch_opt};
#     return nvrtcCompileProgram(*prog, 1, opts);
# }
# ```
#
# A library: one load for every context. A module belongs to the context current at its load; a
# library's `CUkernel` to none, and `cuKernelGetFunction` gives its function in whichever context
# is current:
#
# `core.c:149-155`
# ```c
# /* b) A library (CUDA 12.0): loaded once, for every context, those that exist and those made
#  *    later. Its kernel is a CUkernel, which belongs to no context. */
# bool load_library(CUlibrary *lib, CUkernel *kernel, const void *image, const char *name)
# {
#     return checkDriver(cuLibraryLoadData(lib, image, NULL, NULL, 0, NULL, NULL, 0)) &&
#            checkDriver(cuLibraryGetKernel(kernel, *lib, name));
# }
# ```

# %% [markdown]
# ## Run it
#
# The lesson's program, built and run here (`make run` in its folder). Without a usable GPU it stops at its first CUDA call with exit 77 and says why: the cell accepts that and says so. On a GPU it ends with one verdict line. What it printed where the README was written:
#
# ```sh
# make -C 05_ptx_module run | grep -E '^ *\[(ok|n/j|FAIL)\]|^RESULT'
# ```
#
# The claims and the verdict of one run on an NVIDIA H200 (driver 580.159.04, CUDA 13.0); the
# whole output, annotated step by step, is in the second document:
#
# ```
#   [ok]   the PTX names the entry points axpy and empty: extern "C" kept the names plain
#   [ok]   its target (sm_90) is not newer than the card (sm_90), so code made from it can run here
#   [ok]   the JIT is the driver's own compiler, of the driver's version (580.159.04), not the toolkit's ptxas
#   [ok]   the JIT reported its own time (12.076 ms), a part of the 12.700 ms the load took
#   [ok]   the JIT's info log names the kernel axpy
#   [ok]   from the fatbin the driver took the SASS that fits this sm_90 card (sm_90): the JIT did not run
#   [ok]   a cold JIT (11.683 ms) is more than 10x slower than loading the cubin (0.031 ms)
#   [ok]   a JIT cache hit (0.073 ms) costs less than half a cold JIT (11.683 ms)
#   [ok]   the very first load from the PTX file (102.206 ms) was a cold JIT too
#   [ok]   cuFuncGetAttribute and the JIT log agree: 10 registers
#   [ok]   the function can take 256-thread blocks, and the JIT made SASS for this card (sm_90)
#   [ok]   the kernelParams launch computed every element right
#   [ok]   the extra (packed buffer) launch computed every element right
#   [ok]   NVRTC's PTX names the entry point axpy
#   [ok]   every loading path, NVRTC's included, gives the same result, bit for bit
#   [ok]   cuLaunchKernel and <<<>>> cost about the same (ratio 0.94, within a factor of 2)
#   [ok]   a launch costs the host microseconds, not milliseconds
#   [ok]   waiting for each launch to finish (9.85 us) costs more than launching (4.57 us)
#   [ok]   a graph runs the same kernels at less cost per kernel (0.51 us, the dearer graph) than launching them one by one (4.58 us, the cheaper way)
#   [ok]   a missing file is CUDA_ERROR_FILE_NOT_FOUND
#   [ok]   a PTX syntax error is CUDA_ERROR_INVALID_PTX, and only the error log says where: line 50 of the text, 'rte'
#   [ok]   a kernel name that is not in the module is CUDA_ERROR_NOT_FOUND
#   [ok]   PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION: update the driver
#   [ok]   PTX for a newer architecture than the card's does not load
#   [ok]   an NVRTC compile error is NVRTC_ERROR_COMPILATION, explained in the program log
#   [ok]   a C++ kernel is not found by its plain name
#   [ok]   by its mangled name the same kernel is found and adds one to every element
#   [ok]   for a 4-byte parameter the driver copied 4 bytes from &N, the first half of the size_t
#   [ok]   the driver copied the parameter's 8 bytes from &n: 4 of n, 4 of its neighbour: each kernelParams entry must point at exactly the parameter's type
#   [ok]   an initialiser list sets the elements it names; the rest are zero
#   [ok]   a module's function does not run in another context: one module per context
#   [ok]   one cuLibraryLoadData served all 3 contexts on 1 GPU(s), one created after it too
#   [n/j]  the same library serves a second GPU - not judged here: one GPU is visible; this needs two
#   [ok]   the runtime loaded PTX and launched a kernel from it (CUDA 12.8)
#   [ok]   a kernel compiled into the program is a CUfunction the Driver API can query and launch
#   [ok]   the runtime's cudaKernel_t is a CUkernel: the Driver API takes it (CUDA 12.8)
#   [ok]   on 40 of 132 SMs the kernel took 3.29x as long, within a third of the SM ratio (3.30x)
# RESULT: PASS - all 36 checks passed, 1 not judged
# ```

# %% language="bash"
# cd "$CUDA_LESSONS/05_ptx_module" || exit 1
# log="$(mktemp)"
# make run 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # The verdict, said once in a line tools and make run-notebooks read. Exit 77 (no usable GPU or
# # driver: make run says "could not run here") is accepted: nothing was judged, nothing failed.
# if [ "$rc" -eq 0 ] && grep -q '^RESULT: PASS' "$log"; then
#   echo "notebook verdict: 05_ptx_module: PASS"
# elif [ "$rc" -eq 0 ] && grep -q 'could not run here (exit 77' "$log"; then
#   echo "notebook verdict: 05_ptx_module: NO GPU (exit 77, accepted: the lines above say why)"
# else
#   echo "notebook verdict: 05_ptx_module: FAIL (make run exited $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"

# %% [markdown]
# ## Exercises
#
# Each exercise is a folder of `exercises/` holding the one file that is yours, with a README
# naming the `FIXME`s; `make check` grades them (it needs a GPU).
#
# **`exercises/pack_extra`** (`pack.c`): `pack_args()` packs `axpy`'s four parameters back to
# back; put each at the offset the kernel reads it from (0, 8, 16, 24) and report the size (28),
# then the harness launches `axpy` with your buffer through `extra`.
#
# **`exercises/find_kernel`** (`find.c`): the kernel is C++, so `cuModuleGetFunction(...,
# "scale")` fails with `CUDA_ERROR_NOT_FOUND`; ask NVRTC for its mangled name
# (`nvrtcAddNameExpression` before the compile, `nvrtcGetLoweredName` after).
#
# **`exercises/library_kernel`** (`library.c`): the code is loaded as a module, so contexts made
# later cannot run it; load it once as a library (`cuLibraryLoadData`, `cuLibraryGetKernel`) and
# get each context's function with `cuKernelGetFunction`.
#
# Everything else (how nvcc and the driver share the work, the build step by step, the output
# annotated, the JIT cache and CUDA's own switches, other machines and toolkits, common mistakes,
# regimes, where each step lives in the code) is in [the lesson in depth](../../05_ptx_module/IN_DEPTH.md).
#
# In this notebook each exercise's file is the cell below its task: edit the cell, run it (`%%writefile` writes your file into the lesson's `exercises/` folder), then run the grading cell at the end, `make check`, which grades every exercise of the lesson.

# %% [markdown]
# # find_kernel: find a C++ kernel in a module by its mangled name
#
# **Your file:** `find.c` (the only one graded).
#
# The harness compiles a kernel `scale` with NVRTC. Its source is C++ (no `extern "C"`), and its
# parameter types change from run to run, so the name in the compiled code is a mangled one and
# `cuModuleGetFunction(..., "scale")` fails with `CUDA_ERROR_NOT_FOUND`.
#
# **What to do:** fix the two `FIXME`s in `find.c`, without changing the kernel's source:
# - in `before_compile()` (line 24): register the name expression `"scale"` with
#   `nvrtcAddNameExpression`;
# - in `kernel_name()` (line 31), called after the compile: read the mangled name with
#   `nvrtcGetLoweredName` into `name`, terminated within the `len` bytes you are given.
#
# **How it is graded:** the name must be this run's mangled name, written within `len` bytes,
# found in the module, got through those two NVRTC calls (counted), and the kernel must scale
# fresh data right. Your calls make no driver resource (the driver counts them). Run `make check` from `05_ptx_module/` (it needs a GPU);
# `./build/exercises/find_kernel SEED` prints the harness's report by hand.
# The length you are given comes from the seed and the buffer ends where a page that cannot be touched
# begins (a write past `len` stops the program); a second call gives less room than the name needs:
# cut the name there, terminated, or return false.

# %%
# %%writefile 05_ptx_module/exercises/find_kernel/find.c
/*
 * Exercise find_kernel: find a C++ kernel in a module by its real name.
 *
 * This file is yours (the only one graded). The harness (harness/find_kernel/) compiles a
 * kernel `scale` with NVRTC. Its source declares the kernel WITHOUT extern "C", as most CUDA C++
 * code does, so the compiler gives it a C++ "mangled" name that encodes its parameter types, and
 * that mangled name is the one in the compiled code: cuModuleGetFunction(..., "scale") fails
 * with CUDA_ERROR_NOT_FOUND. The parameter types change from run to run, and the name with them.
 *
 * YOUR TASK: make the lookup find the kernel WITHOUT changing the kernel source. Ask NVRTC for
 * the mangled name: in before_compile(), register the name expression "scale" with
 * nvrtcAddNameExpression(); in kernel_name(), called after the compile, read the result with
 * nvrtcGetLoweredName() into name, terminated within the len bytes you are given. The harness
 * looks that name up in the module, runs the kernel on fresh data, and counts your NVRTC calls.
 * Check: make check (from 05_ptx_module).
 */
#include <stdio.h>

#include "find_kernel.h"

bool before_compile(nvrtcProgram prog)
{
    (void)prog;
    /* FIXME: register the name expression "scale" here ... */
    return true;
}

bool kernel_name(nvrtcProgram prog, char *name, size_t len)
{
    (void)prog;
    /* FIXME: ... and read the mangled name into `name` here. */
    snprintf(name, len, "%s", "scale");
    return true;
}

# %% [markdown]
# # pack_extra: launch a kernel with cuLaunchKernel's `extra` buffer
#
# **Your file:** `pack.c` (the only one graded).
#
# `extra` hands `cuLaunchKernel` one buffer that holds all of
# `axpy(float a, const float *x, float *y, int n)`'s parameters, each at the offset the kernel
# reads it from (a multiple of its own size), and the buffer's size.
#
# **What to do:** fix the `FIXME` in `pack_args()` (`pack.c`, line 27). As given it packs the
# values back to back (`a` at 0, `x` at 4, ...): put each where the kernel expects it (`a` 0,
# `x` 8, `y` 16, `n` 24) and report the size, the end of `n` (28, not `sizeof` a struct, 32).
# Hint: a C struct with the same members in the same order has the kernel's layout; `offsetof`
# says where each lies.
#
# **How it is graded:** the harness (`harness/pack_extra/`) reads where each value landed and the
# size you report, then launches `axpy` with your buffer on fresh data of three sizes and checks
# `y = 3x + 1`. `pack_args()` makes no driver resource (the driver counts them). Run `make check` from `05_ptx_module/` (it needs a GPU);
# `./build/exercises/pack_extra SEED` prints the harness's report by hand.
# The 64-byte buffer ends where a page that cannot be touched begins: writing past it stops the
# program.

# %%
# %%writefile 05_ptx_module/exercises/pack_extra/pack.c
/*
 * Exercise pack_extra: launch a kernel with cuLaunchKernel's `extra` buffer.
 *
 * This file is yours (the only one graded). The kernel is
 *     extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
 * and `extra` hands cuLaunchKernel ONE buffer holding all four parameters, laid out exactly as
 * the kernel's parameter list is laid out in memory: each parameter at an offset that is a
 * multiple of its own size (its alignment), in order.
 *
 * YOUR TASK: fix pack_args() below so that the buffer has that layout, and report its size.
 * Today it packs the values back to back (a at 0, x at 4, ...): the pointers are then at
 * offsets the kernel does not read them from, and the launch fails or computes garbage.
 * The harness (harness/pack_extra/) finds where each value landed in the buffer, reads the size
 * you report, and launches axpy with your buffer on fresh data of three sizes.
 * Check: make check (from 05_ptx_module).
 *
 * Hint: the pointer x must start at an offset that is a multiple of 8. A C struct with the
 * same members in the same order has exactly the kernel's layout; offsetof() tells you where.
 */
#include <stddef.h>
#include <string.h>

#include "pack_extra.h"

void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* FIXME: this packs the values back to back. Put each one where the kernel expects it. */
    memcpy(buf + 0, &a, sizeof a);
    memcpy(buf + 4, &x, sizeof x);
    memcpy(buf + 12, &y, sizeof y);
    memcpy(buf + 20, &n, sizeof n);
    *size = 24;
}

# %% [markdown]
# # library_kernel: one load of a kernel, used in every context
#
# **Your file:** `library.c` (the only one graded).
#
# A module (`cuModuleLoadData`) belongs to the context that was current at its load; its
# functions do not run in another context. A library (`cuLibraryLoadData`, CUDA 12.0) is loaded
# once and serves every context, those that exist and those created later.
#
# **What to do:** fix the four `FIXME`s in `library.c`:
# - `struct loaded` (line 24): hold a `CUlibrary` and a `CUkernel` instead of a module;
# - `kernel_load()` (line 33): `cuLibraryLoadData` (its option arrays may be NULL with counts 0),
#   then `cuLibraryGetKernel(..., "twice")`;
# - `kernel_function()` (line 46): `cuKernelGetFunction`, the function of the kernel in the
#   context current now;
# - `kernel_unload()` (line 54): `cuLibraryUnload`.
#
# **How it is graded:** the harness loads once with the primary context current, then runs the
# kernel in the primary context and in two contexts it creates after the load; it checks the
# results and counts one library load, no module load and one unload. Creating a context yourself
# (`cuCtxCreate`) is refused. Run `make check` from `05_ptx_module/` (it needs a GPU);
# `./build/exercises/library_kernel SEED` prints the harness's report by hand.
# The driver counts what you load, whatever call made it: one library (or module), loaded once and
# unloaded. The grader also makes your driver calls fail, one at a time (`--fail-at N`):
# `kernel_load()` or `kernel_unload()`, whichever saw it, must return false (a result not checked is
# a silent success and loses), leaving nothing loaded; no crash.
# After each of your calls the context stack, the primary context's state and the current device must
# be as they were.
#
# Refused in your file (the grader stops before the link and says why):
# - `cuLibraryLoadFromFile`: the image is given in memory (kernel_load's argument); a file would be read from outside the exercise
# - `cuModuleLoad`: the image is given in memory; a file would be read from outside the exercise

# %%
# %%writefile 05_ptx_module/exercises/library_kernel/library.c
/*
 * Exercise library_kernel: one load of a kernel, used in every context.
 *
 * This file is yours (the only one graded). A module (cuModuleLoadData) belongs to the context
 * that was current when it was loaded; its functions do not run in another context. A library
 * (cuLibraryLoadData, CUDA 12.0) is loaded once and serves every context, those that exist and
 * those created later: cuLibraryGetKernel gives a context-free CUkernel, and
 * cuKernelGetFunction turns it into the CUfunction of the current context.
 *
 * The harness (harness/library_kernel/) calls kernel_load() once with the primary context
 * current, then kernel_function() and the kernel in the primary context and in two contexts it
 * creates after the load, then kernel_unload(); it counts your loads and unloads.
 * YOUR TASK: as given, the code is loaded as a MODULE, so the contexts created after the load
 * cannot run it. Load it once as a LIBRARY instead: cuLibraryLoadData (its JIT and library
 * option arrays may be NULL with counts 0) and cuLibraryGetKernel after it; in
 * kernel_function(), cuKernelGetFunction; unload with cuLibraryUnload.
 * Check: make check (from 05_ptx_module).
 */
#include <stdlib.h>

#include "library_kernel.h"

struct loaded {
    CUmodule module; /* FIXME: a CUlibrary and a CUkernel instead */
    CUfunction f;
};

bool kernel_load(const void *image, void **handle)
{
    struct loaded *l = calloc(1, sizeof *l);
    if (!l)
        return false;
    /* FIXME: a library, not a module. */
    if (!checkDriver(cuModuleLoadData(&l->module, image)) ||
        !checkDriver(cuModuleGetFunction(&l->f, l->module, "twice"))) {
        free(l);
        return false;
    }
    *handle = l;
    return true;
}

bool kernel_function(void *handle, CUfunction *f)
{
    struct loaded *l = handle;
    /* FIXME: the function of the kernel for the context current now. */
    *f = l->f;
    return true;
}

bool kernel_unload(void *handle)
{
    struct loaded *l = handle;
    bool ok = checkDriver(cuModuleUnload(l->module)); /* FIXME: unload the library */
    free(l);
    return ok;
}

# %% [markdown]
# ### Grade your exercises
#
# `make check` builds each exercise with its harness and runs its grader (it needs a GPU): points per exercise, all or nothing.

# %% language="bash"
# cd "$CUDA_LESSONS/05_ptx_module" || exit 1
# log="$(mktemp)"
# make check 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
# # make check exits 0 when every exercise passed; 2 after a line naming the grader's own code:
# # 1 (some exercise has not passed yet: the table above gives the points), 77 (it cannot grade
# # here: no usable GPU). Neither stops the notebook; anything else does.
# if [ "$rc" -eq 0 ]; then echo "notebook: every exercise of 05_ptx_module passed"
# elif grep -q 'exited 77' "$log"; then echo "notebook: cannot grade here (exit 77, accepted: no usable GPU)"
# elif grep -q 'bats is needed to grade' "$log"; then echo "notebook: make check needs bats with bats-assert and bats-support (Debian: apt-get install bats bats-assert bats-support)"; rm -f "$log"; exit 1
# elif grep -q 'exited 1 ' "$log"; then echo "notebook: not every exercise passes yet (the points above)"
# else echo "notebook: make check failed (exit $rc)"; rm -f "$log"; exit 1
# fi
# rm -f "$log"
