#!/usr/bin/env bats
# tests/run itself: the closing "N passed, N failed, N skipped" line that make test ends with,
# counted from TAP and from bats' pretty formatter, and the exit status (CPU only).

load test_helper

setup() {
    mkdir -p "$BATS_TEST_TMPDIR/t"
    printf '%s\n' '@test "a" { true; }' '@test "b" { skip "no reason"; }' '@test "c" { false; }' \
        >"$BATS_TEST_TMPDIR/t/mixed.bats"
    printf '%s\n' '@test "d" { true; }' '@test "e" { true; }' >"$BATS_TEST_TMPDIR/t/good.bats"
}

@test "tests/run: the last line counts passed, failed and skipped over every file (TAP)" {
    run env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter tap -- "$BATS_TEST_TMPDIR/t"
    assert_failure 1
    assert_equal "${lines[${#lines[@]} - 1]}" "3 passed, 1 failed, 1 skipped"
    assert_line "1..5"
}

@test "tests/run: the same count from bats' pretty formatter, and exit 0 when nothing failed" {
    rm "$BATS_TEST_TMPDIR/t/mixed.bats"
    printf '%s\n' '@test "f" { skip; }' >"$BATS_TEST_TMPDIR/t/skip.bats"
    run env -u MAKEFLAGS bash "$ROOT/tests/run" bats --formatter pretty -- "$BATS_TEST_TMPDIR/t"
    assert_success
    assert_equal "${lines[${#lines[@]} - 1]}" "2 passed, 0 failed, 1 skipped"
}
