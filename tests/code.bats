#!/usr/bin/env bats
# The code a student reads (CPU only): each lesson's core file within its limits, the house
# layout (clang-format), and no reference to documents a student does not have. The READMEs'
# budget, order and quotes, the demos and the rest of the lesson layout: tests/layout.bats.

load test_helper

# bats test_tags=core
@test "each lesson has a core file within the limits (300 lines, functions of 40 at most, a quarter CUDA calls, 2 rename wrappers at most, nothing of proof/)" {
    local d
    for d in $(list_lessons "$ROOT"); do
        [ -f "$ROOT/$d/core.c" ] || fail "$d has no core.c"
        run "$ROOT/tools/check-core" "$ROOT/$d/core.c"
        [ "$status" -eq 0 ] || fail "$output"
    done
}

@test "tools/check-core fails on a long function, a long file and a file with few CUDA calls" {
    local f="$BATS_TEST_TMPDIR/core.c"
    { echo '/* c */'; echo 'void f(void)'; echo '{'; for i in $(seq 40); do echo '    cudaFree(0);'; done; echo '}'; } >"$f"
    run "$ROOT/tools/check-core" "$f"
    assert_failure 1
    assert_output --partial "is 42 lines (40 at most)"
    { echo '/* c */'; echo 'void f(void)'; echo '{'; for i in $(seq 10); do echo '    x++;'; done; echo '    cudaFree(0);'; echo '}'; } >"$f"
    run "$ROOT/tools/check-core" "$f"
    assert_failure 1
    assert_output --partial "(25% at least)"
    { echo '/* c */'; for i in $(seq 301); do echo 'int x'$i' = cudaFree(0);'; done; } >"$f"
    run "$ROOT/tools/check-core" "$f"
    assert_failure 1
    assert_output --partial "(300 at most)"
}

@test "tools/check-chains: more than three CUDA calls in one && chain fails, each named by its line; comments, strings and separate statements do not count" {
    local f="$BATS_TEST_TMPDIR/chain.c"
    printf '%s\n' '/* c */' 'bool f(void)' '{' \
        '    bool ok = checkDriver(cuInit(0)) && checkDriver(cuDeviceGet(&d, 0)) &&' \
        '              checkDriver(cuCtxCreate(&c, NULL, 0, d));' \
        '    ok = ok && checkRuntime(cudaFree(0)); /* cudaFree( && cudaFree( && cudaFree( */' \
        '    ok = ok && check("cudaFree( && cuInit( && cuInit(") && checkRuntime(cudaFree(p));' \
        '    return ok && launch_work(a) && cudaGetLastError() == 0;' '}' >"$f"
    run "$ROOT/tools/check-chains" "$f"
    assert_success
    assert_output ""
    printf '%s\n' 'bool g(void)' '{' '    return checkRuntime(cudaSetDevice(0)) &&' '           checkRuntime(cudaFree(0)) &&' \
        '           checkRuntime(cudaMalloc(&p, 4)) && checkRuntime(cudaFree(p));' '}' >>"$f"
    run "$ROOT/tools/check-chains" "$f"
    assert_failure 1
    assert_output "$f:12: 4 CUDA calls chained with &&"
    run "$ROOT/tools/check-chains"
    assert_failure 2
    run "$ROOT/tools/check-chains" "$BATS_TEST_TMPDIR/none.c"
    assert_failure 2
}

@test "every C, CUDA and header file is laid out as .clang-format says (make format-check)" {
    if ! command -v clang-format >/dev/null 2>&1; then
        [ "${REQUIRE_CLANG_FORMAT:-0}" != 1 ] || fail "clang-format is not installed (REQUIRE_CLANG_FORMAT=1)"
        skip "clang-format is not installed (Debian: apt-get install clang-format)"
    fi
    run make -s -C "$ROOT" format-check
    assert_success
}

@test "nothing a student reads names the source documents (seed 000-004, the seeds)" {
    run grep -rniE --include='*.md' --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' \
        --include='*.out' --include='*.sh' -e 'seed 00[0-9]' -e 'the seeds' -e "seeds'" -e 'seeds\.c' \
        "$ROOT"/[0-9][0-9]_* "$ROOT/common" "$ROOT/tests/expected" "$ROOT/README.md" "$ROOT/TEACHING.md"
    assert_failure 1
}
