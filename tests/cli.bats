#!/usr/bin/env bats
# The command line of every lesson program, without a GPU: what common/check.c does for all of
# them (strict numbers, a failed write to stdout, closed standard descriptors). Also runs
# against the HOST_SANITIZE=1 build (LESSON_BUILD=build-hostsan, as .ci/run does).

setup_file() {
    load test_helper
    local cuda
    cuda="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")")"
    export PROBE="$BATS_FILE_TMPDIR/fd_probe"
    cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/common" -I"$cuda/include" \
        "$ROOT/tests/cli/fd_probe.c" "$ROOT/common/check.c" "$ROOT/common/driver_loader.c" \
        -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static -ldl -lpthread -lrt \
        -o "$PROBE" >"$BATS_FILE_TMPDIR/cc.log" 2>&1 || true
}

setup() {
    load test_helper
    PROGRAMS=()
    local l
    for l in $(list_lessons "$ROOT") ; do
        PROGRAMS+=("$(lesson_bin "$l")")
    done
    [ "${#PROGRAMS[@]}" -ge 5 ] || fail "expected the five lesson programs, found ${#PROGRAMS[@]}"
    for p in "${PROGRAMS[@]}"; do
        [ -x "$p" ] || fail "$p is not built (make${LESSON_BUILD:+ HOST_SANITIZE=1})"
    done
}

@test "--device takes digits only: '+4', ' 4', '4 ', '4x', '' and '0x1' exit 2 naming the text" {
    for p in "${PROGRAMS[@]}"; do
        for bad in "+4" " 4" "4 " "4x" "" "0x1" "--1"; do
            CUDA_VISIBLE_DEVICES= run "$p" --device "$bad"
            assert_equal "$(basename "$p") --device '$bad': exit $status" "$(basename "$p") --device '$bad': exit 2"
            assert_output --partial "not '$bad'"
            assert_output --partial "usage:"
        done
    done
}

@test "a failed write to stdout is an error: --help > /dev/full exits 1 and says so" {
    [ -w /dev/full ] || skip "no /dev/full here"
    for p in "${PROGRAMS[@]}"; do
        run sh -c '"$1" --help >/dev/full' sh "$p"
        assert_equal "$(basename "$p"): exit $status" "$(basename "$p"): exit 1"
        assert_line --regexp "^$(basename "$p"): write error on standard output"
    done
}

@test "--help still exits 0 into a pipe and with stdout closed" {
    for p in "${PROGRAMS[@]}"; do
        run sh -c '"$1" --help | head -1' sh "$p"
        assert_success
        assert_output --partial "usage: $(basename "$p")"
        run sh -c '"$1" --help >&-' sh "$p"
        assert_success
        assert_output ""
    done
}

@test "with stdout closed, the next file a program opens does not take descriptor 1" {
    [ -x "$PROBE" ] || fail "the probe did not build: $(cat "$BATS_FILE_TMPDIR/cc.log")"
    run sh -c '"$1" >&-' sh "$PROBE"
    assert_success
    refute_output --partial "next file descriptor: 1"
    run sh -c '"$1" <&- >&- 2>/dev/null; echo "exit $?"' sh "$PROBE"
    assert_output "exit 0"
}
