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
# # T4 smoke: every lesson on this runtime, once
#
# For a teacher, before the class: on Colab choose Runtime > Change runtime type > T4 GPU, set
# `SUITE_URL` (course/kit.conf, or the first code cell), then Runtime > Run all. The notebook runs `make doctor`, then
# every lesson (`make run` in each folder) and prints one verdict line per lesson, then grades the
# reference solutions (`make check SOLUTIONS=1` at the top: every exercise must get its points)
# and ends with a table. It takes a few minutes on a T4.

# %%
# Where the suite comes from. In a checkout (a local Jupyter started anywhere inside it) the
# notebook uses that checkout. On Colab it clones SUITE_URL at SUITE_REF, this notebook's own
# release tag (never a branch). A teacher sets SUITE_URL once for every notebook, in
# course/kit.conf before make notebooks (or here, or as the environment's CUDA_LESSONS_URL).
SUITE_URL = ""  # your course's copy, e.g. "https://github.com/your-course/cuda-lessons.git" (course/kit.conf)
SUITE_REF = "course-v1"  # the release these cells were made from (course/kit.conf)
LESSON = "all"

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
# ## Every lesson, one verdict each

# %% language="bash"
# cd "$CUDA_LESSONS" || exit 1
# fail=0
# for d in 01_hello_runtime 02_driver_context 03_pinned_memory 04_streams_overlap 05_ptx_module; do
#   log="$(mktemp)"
#   make -C "$d" run >"$log" 2>&1; rc=$?
#   if [ "$rc" -eq 0 ] && grep -q '^RESULT: PASS' "$log"; then v="PASS ($(grep '^RESULT:' "$log" | tail -n 1))"
#   elif [ "$rc" -eq 0 ] && grep -q 'could not run here (exit 77' "$log"; then v="NO GPU (exit 77, accepted: $(grep -m1 'cannot run here' "$log"))"
#   else v="FAIL (exit $rc)"; fail=1; tail -n 20 "$log"; fi
#   echo "notebook verdict: $d: $v"
#   rm -f "$log"
# done
# exit "$fail"

# %% [markdown]
# ## The graders on the reference solutions

# %% language="bash"
# cd "$CUDA_LESSONS" || exit 1
# log="$(mktemp)"
# make check SOLUTIONS=1 2>&1 | tail -n 40 | tee "$log"; rc=${PIPESTATUS[0]}
# if [ "$rc" -eq 0 ]; then echo "notebook: every reference solution got its points"
# elif grep -q 'exited 77' "$log"; then echo "notebook: cannot grade here (exit 77, accepted: no usable GPU)"
# else echo "notebook: a reference solution did not pass (exit $rc): this machine cannot grade the class as it is"; rm -f "$log"; exit 1
# fi
# rm -f "$log"
