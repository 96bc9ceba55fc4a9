#!/usr/bin/env bats
# The build itself: warnings, each lesson alone, make clean, the variables. Runs anywhere
# (nvcc is needed, a GPU is not), in a copy of the tree so the real build is left alone.

setup_file() {
    load test_helper
    export COPY="$BATS_FILE_TMPDIR/tree"
    mkdir -p "$COPY"
    (cd "$ROOT" && git ls-files -co --exclude-standard -z | grep -zv '^\.gpu/' \
        | xargs -0 tar cf - --ignore-failed-read 2>/dev/null) | (cd "$COPY" && tar xf -) || true
    local rc=0
    make -C "$COPY" -j2 >"$BATS_FILE_TMPDIR/build.log" 2>&1 || rc=$?
    echo "$rc" >"$BATS_FILE_TMPDIR/build.status"
}

setup() {
    load test_helper
    LESSONS="$(cd "$COPY" && ls -d [0-9][0-9]_*/ | tr -d /)"
}

@test "a clean build of every lesson succeeds" {
    run cat "$BATS_FILE_TMPDIR/build.status"
    assert_output 0
    for l in $LESSONS; do
        [ -x "$COPY/$l/build/${l#*_}" ] || fail "$l/build/${l#*_} was not built"
    done
}

@test "a clean build prints no warning" {
    # nvcc's own "-Werror all-warnings" on the command lines is not a warning
    run grep -i -E '\bwarning\b' "$BATS_FILE_TMPDIR/build.log"
    assert_failure
}

@test "every exercise and its solution build as given" {
    for l in $LESSONS; do
        for e in "$COPY/$l"/exercises/*/ "$COPY/$l"/solutions/*/; do
            [ -d "$e" ] || continue
            kind="$(basename "$(dirname "$e")")"
            [ -x "$COPY/$l/build/$kind/$(basename "$e")" ] || fail "$l: $kind/$(basename "$e") not built"
        done
    done
}

@test "each lesson builds alone with make -C" {
    for l in $LESSONS; do
        run make -C "$COPY/$l" clean
        assert_success
        run make -C "$COPY/$l"
        assert_success
        [ -x "$COPY/$l/build/${l#*_}" ] || fail "$l did not build alone"
    done
}

@test "make is safe with -j and a second make has nothing to do" {
    run make -C "$COPY" -j4
    assert_success
    run make -C "$COPY/01_hello_runtime" all
    assert_success
    refute_output --regexp '(nvcc|cc) .* -c '
}

@test "changing a header rebuilds what includes it" {
    touch "$COPY/common/check.h"
    run make -C "$COPY/01_hello_runtime"
    assert_success
    assert_output --regexp 'cc .* -c main\.c'
    assert_output --regexp 'cc .* -c .*common/check\.c'
}

@test "ARCH=90 builds for sm_90 only, with PTX; dbg=1 builds with -G" {
    run make -C "$COPY/01_hello_runtime" ARCH=90 dbg=1
    assert_success
    run cat "$COPY/01_hello_runtime/build/flags"
    assert_output --partial "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
    assert_output --partial " -G"
    refute_output --partial "compute_80"
    if command -v cuobjdump >/dev/null 2>&1; then
        run cuobjdump --list-elf "$COPY/01_hello_runtime/build/hello_runtime"
        assert_output --partial "sm_90"
        refute_output --partial "sm_80"
    fi
    run make -C "$COPY/01_hello_runtime"   # back to the default flags
    assert_success
}

@test "no nvcc: one clear message saying what to install or set" {
    run make -C "$COPY" NVCC=/nonexistent/nvcc
    assert_failure
    assert_output --partial "nvcc not found (looked for '/nonexistent/nvcc')"
    assert_output --partial "CUDA_PATH="
}

@test "make help lists the targets and the variables" {
    run make -C "$COPY" help
    assert_success
    for word in "make run" "make test" "make clean" CUDA_PATH NVCC ARCH CFLAGS NVCCFLAGS dbg=1; do
        assert_output --partial "$word"
    done
}

@test "make clean leaves no build output" {
    run make -C "$COPY" clean
    assert_success
    run find "$COPY" \( -name build -o -name '*.o' -o -name '*.d' -o -name '*.ptx' -o -name '*.cubin' \) -print
    assert_output ""
}

@test "make run without a GPU: every lesson is reported as could-not-run (exit 77), make exits 0" {
    # CUDA_VISIBLE_DEVICES= hides every GPU, so this holds on any machine
    CUDA_VISIBLE_DEVICES= run make -C "$COPY" run
    assert_success
    assert_output --partial "==================== summary ===================="
    for l in $LESSONS; do
        assert_output --regexp "$l +could not run here \\(no usable GPU or driver\\) \\(exit 77\\)"
    done
}
