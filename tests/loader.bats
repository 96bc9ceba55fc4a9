#!/usr/bin/env bats
# The Driver API loader (common/driver_loader.c, its table generated from the toolkit's cuda.h by
# common/driver-forward): every cu* name that an allow list accepts (grading/check/exercise-allow
# and each exercise's harness/NAME/allow or harness/NAME.allow) links into a program and, run
# over the toolkit's stub libcuda.so (as libcuda.so.1), reaches it: the stub answers every call
# with CUDA_ERROR_STUB_LIBRARY (34), so any other answer (302, the symbol not found; 303, no
# library) names a call that the loader does not forward. On CPU.

load test_helper

setup() {
    CUDA="$(cuda_root)"
    [ -f "$CUDA/include/cuda.h" ] || skip "no CUDA toolkit found (cuda.h)"
    GEN="$BATS_TEST_TMPDIR/gen"
    mkdir -p "$GEN"
}

# The allow lists: the exercise-wide one and every exercise's.
allow_lists() {
    (cd "$ROOT" && ls grading/check/exercise-allow [0-9][0-9]_*/harness/*/allow \
        [0-9][0-9]_*/harness/*.allow 2>/dev/null)
}

# allowed_cu_names TABLE: every cu* name the allow lists accept, one a line: a name as written
# (NAME_v* as NAME: cuda.h's macro picks the version), and for a prefix NAME* every function of
# the generated TABLE that starts with it.
allowed_cu_names() {
    local table="$1" f
    for f in $(allow_lists); do
        sed 's/#.*//' "$ROOT/$f" | awk '{print $1}' | grep -E '^cu[A-Z]' || true
    done | sort -u | while read -r name; do
        case "$name" in
            *_v\*) echo "${name%_v\*}" ;;
            *\*) sed -n 's/^ *X(\([A-Za-z0-9_]*\),.*/\1/p' "$table" | grep "^${name%\*}" ;;
            *) echo "$name" ;;
        esac
    done | sort -u
}

# probe TABLE NAME...: a program that calls each NAME (through cuda.h's macros, as a student's
# file would) linked with driver_loader.c and TABLE, run over the stub. Its output: the first
# name that does not link or does not reach the stub, or "N calls reached the stub".
probe() {
    local table="$1" src="$BATS_TEST_TMPDIR/probe.c" stub n
    shift
    cp "$table" "$GEN/driver_forward.h"
    {
        echo '#include <cuda.h>'
        echo '#include <stdio.h>'
        echo 'typedef CUresult (*any_call)(void *, void *, void *, void *, void *, void *, void *, void *,'
        echo '                             void *, void *, void *, void *);'
        echo 'static const struct { const char *name; void (*fn)(void); } calls[] = {'
        for n in "$@"; do echo "    {\"$n\", (void (*)(void))$n},"; done
        echo '};'
        echo 'int main(void)'
        echo '{'
        echo '    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {'
        echo '        CUresult r = ((any_call)calls[i].fn)(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);'
        echo '        if (r != CUDA_ERROR_STUB_LIBRARY) {'
        echo '            printf("%s: answered %d, not the stub'"'"'s %d: not forwarded\n", calls[i].name, (int)r,'
        echo '                   (int)CUDA_ERROR_STUB_LIBRARY);'
        echo '            return 1;'
        echo '        }'
        echo '    }'
        echo '    printf("%zu calls reached the stub\n", sizeof calls / sizeof calls[0]);'
        echo '    return 0;'
        echo '}'
    } >"$src"
    if ! cc -std=c11 -Wall -Wextra -Werror -Wno-deprecated-declarations -I"$ROOT/common" \
        -I"$CUDA/include" -I"$GEN" -DDRIVER_FORWARD_GENERATED "$src" "$ROOT/common/driver_loader.c" \
        -ldl -lpthread -o "$BATS_TEST_TMPDIR/probe" >"$BATS_TEST_TMPDIR/probe.log" 2>&1; then
        n="$(grep -o -m1 "undefined reference to \`[A-Za-z0-9_]*'" "$BATS_TEST_TMPDIR/probe.log" \
            | sed "s/.*\`\(.*\)'/\1/")"
        if [ -n "$n" ]; then echo "$n: does not link (undefined reference)"
        else echo "the probe did not build:"; head -5 "$BATS_TEST_TMPDIR/probe.log"; fi
        return 0
    fi
    stub="$(stub_driver_dir)" || { echo "no stub libcuda.so in the CUDA toolkit"; return 0; }
    LD_LIBRARY_PATH="$stub" "$BATS_TEST_TMPDIR/probe" 2>&1 || true
}

@test "common/driver-forward: the whole Driver API of cuda.h, under the names its macros select" {
    run sh "$ROOT/common/driver-forward" "$CUDA/include" "$GEN/table.h"
    assert_success
    run grep -c '^    X(cu' "$GEN/table.h"
    [ "$output" -ge 300 ] || fail "only $output functions in the table"
    # the renamed forms, as a -lcuda build links them; never the per-thread stream's
    grep -q '^    X(cuMemAlloc_v2, (CUdeviceptr \*dptr, size_t bytesize), (dptr, bytesize))' "$GEN/table.h"
    grep -q '^    X(cuMemsetD8_v2,' "$GEN/table.h"
    grep -q '^    X(cuCtxSynchronize, (void), ())' "$GEN/table.h"
    run grep -E '_pt[sd]z,|X\(cuMemAlloc,' "$GEN/table.h"
    assert_failure
    run sh "$ROOT/common/driver-forward" "$BATS_TEST_TMPDIR/none" "$GEN/x.h"
    assert_failure
    assert_output "common/driver-forward: no cuda.h in $BATS_TEST_TMPDIR/none"
}

@test "every cu* name an allow list accepts links through the loader and reaches the stub driver" {
    local names
    sh "$ROOT/common/driver-forward" "$CUDA/include" "$GEN/table.h"
    names="$(allowed_cu_names "$GEN/table.h")"
    # the families issue 49 found refused by the link
    for n in cuMemsetD8 cuMemcpyAsync cuMemsetD8Async cuMemsetD32Async cuStreamQuery \
             cuCtxGetStreamPriorityRange cuPointerGetAttributes cuLibraryEnumerateKernels \
             cuLibraryGetKernelCount cuKernelGetName cuMemcpy; do
        grep -qx "$n" <<<"$names" || fail "$n: no allow list accepts it"
    done
    run probe "$GEN/table.h" $names
    assert_output "$(wc -l <<<"$names") calls reached the stub"
}

@test "the loader test names the first call that does not link" {
    sh "$ROOT/common/driver-forward" "$CUDA/include" "$GEN/table.h"
    grep -v '^    X(cuStreamQuery,' "$GEN/table.h" >"$GEN/short.h"
    run probe "$GEN/short.h" cuInit cuStreamQuery cuMemsetD8
    assert_output "cuStreamQuery: does not link (undefined reference)"
    run probe "$GEN/table.h" cuInit cuStreamQuery cuMemsetD8
    assert_output "3 calls reached the stub"
}


@test "CUDA 12.x headers: the generated table compiles with the loader (when they are here)" {
    local v inc found=0
    for v in 12.0 12; do
        inc="${XDG_CACHE_HOME:-$HOME/.cache}/cuda-lessons/cu$v-include"
        [ -f "$inc/cuda.h" ] || continue
        found=1
        run sh "$ROOT/common/driver-forward" "$inc" "$GEN/driver_forward.h"
        assert_success
        run cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$ROOT/common" -I"$inc" -I"$GEN" \
            -DDRIVER_FORWARD_GENERATED "$ROOT/common/driver_loader.c"
        assert_success
        grep -q '^    X(cuMemAlloc_v2,' "$GEN/driver_forward.h"
    done
    [ "$found" = 1 ] || skip "no CUDA 12 headers (sh tests/cuda12/fetch-headers [12.0] fetches them)"
}
