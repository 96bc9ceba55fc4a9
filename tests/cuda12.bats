#!/usr/bin/env bats
# CUDA 12: every C file of the suite compiles against CUDA 12 headers (cuda.h,
# cuda_runtime_api.h, nvrtc.h, CUPTI's), the oldest (12.0) and the newest 12.x, so that the
# CUDA_VERSION guards around calls newer than 12.0 hold. What is NOT checked here: the .cu
# files (no CUDA 12 nvcc here; the pip wheels carry none) and linking or running with a 12.x
# runtime. The headers come from NVIDIA's pip wheels: sh tests/cuda12/fetch-headers [12.0]
# (.ci/run does it); without them each test skips with the reason.

load test_helper

setup() {
    CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cuda-lessons"
}

# The C files of the suite (tracked or new; without git, every .c outside build folders).
c_files() {
    if git -C "$ROOT" rev-parse 2>/dev/null; then
        (cd "$ROOT" && { git ls-files '*.c'; git ls-files -o --exclude-standard '*.c'; } | sort -u)
    else
        (cd "$ROOT" && find . -name '*.c' -not -path '*/build*/*' -not -path './.git/*' | sed 's,^\./,,' | sort)
    fi
}

# headers_for VERSION: sets inc to the folder, or skips with how to get it. Called in the test's
# own shell, not in $(...): a skip inside a command substitution would not skip the test.
headers_for() {
    inc="$CACHE/cu$1-include"
    local arg=""
    [ "$1" = 12 ] || arg=" $1"
    [ -f "$inc/cuda.h" ] && [ -f "$inc/nvrtc.h" ] && [ -f "$inc/crt/host_defines.h" ] \
        || skip "no CUDA $1 headers in $inc (sh tests/cuda12/fetch-headers$arg fetches them from NVIDIA's pip wheels)"
}

# Compiles every C file (-fsyntax-only, the suite's warning flags and include folders: common/,
# the lesson's folder, its proof/ and harness/, as common/lesson.mk gives them) with only $1 for CUDA. Lesson by
# lesson (a lesson's harness/ is on the path of its own files only, and of the graders' variants
# of them in grading/corpus/NN_name/); twelve files to a cc, as
# many cc at a time as there are CPUs: each file is still a translation unit of its own (gcc
# compiles them one by one and goes on after an error), and one cc for twelve costs a quarter
# less than twelve. Where a cc fails, its files are compiled again one by one, to name each that
# fails with its first lines.
compile_all() {
    local inc="$1" files lines
    files="$(c_files)"
    [ "$(wc -l <<<"$files")" -ge 20 ] || fail "found only $(wc -l <<<"$files") C files in $ROOT"
    cd "$ROOT"
    # each file with its lesson (the first NN_name folder on its path), or "-"
    mapfile -t lines < <(sed -E 's,^(.*/)?([0-9][0-9]_[^/]*)/.*,\2 &,;t;s,^,- ,' <<<"$files")
    run sh -c 'for top in $(printf "%s\n" "$@" | cut -d" " -f1 | sort -u); do
        extra=""
        [ "$top" = - ] || extra="-I$top"
        [ ! -d "$top/proof" ] || extra="$extra -I$top/proof"
        [ ! -d "$top/harness" ] || extra="$extra -I$top/harness"
        printf "%s\n" "$@" | sed -n "s,^$top ,,p" | xargs -d "\n" -n 12 -P "$(nproc 2>/dev/null || echo 2)" sh -c '\''
            cc="cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -Icommon -Igrading/harness $1 -I$2"
            shift 2
            $cc "$@" >/dev/null 2>&1 && exit 0
            for f in "$@"; do
                $cc "$f" >/dev/null 2>&1 || { echo "FAILED: $f"; $cc "$f" 2>&1 | head -6; }
            done'\'' "$PWD" "$extra" "'"$inc"'"
    done' sh "${lines[@]}"
    assert_output ""
}

@test "CUDA 12.0 headers: nothing shadows them, and every C file compiles against them" {
    local inc
    headers_for 12.0
    printf '#include <cuda.h>\n#include <cuda_runtime_api.h>\n#include <nvrtc.h>\n' >"$BATS_TEST_TMPDIR/probe.c"
    run cc -E -dM -I"$inc" "$BATS_TEST_TMPDIR/probe.c"
    assert_line "#define CUDA_VERSION 12000"
    run sh -c 'cc -M -I"$1" "$2" | tr " \\\\" "\n\n" | grep -E "/(cuda|cuda_runtime_api|nvrtc|crt/host_defines)\.h$"' sh "$inc" "$BATS_TEST_TMPDIR/probe.c"
    assert_equal "$(grep -c "^$inc/" <<<"$output")" 4
    compile_all "$inc"
}

@test "the newest CUDA 12.x headers: nothing shadows them, and every C file compiles against them" {
    local inc
    headers_for 12
    printf '#include <cuda.h>\n#include <cuda_runtime_api.h>\n#include <nvrtc.h>\n' >"$BATS_TEST_TMPDIR/probe.c"
    run cc -E -dM -I"$inc" "$BATS_TEST_TMPDIR/probe.c"
    assert_line --regexp "^#define CUDA_VERSION 12[0-9]{3}$"
    run sh -c 'cc -M -I"$1" "$2" | tr " \\\\" "\n\n" | grep -E "/(cuda|cuda_runtime_api|nvrtc|crt/host_defines)\.h$"' sh "$inc" "$BATS_TEST_TMPDIR/probe.c"
    assert_equal "$(grep -c "^$inc/" <<<"$output")" 4
    compile_all "$inc"
}
