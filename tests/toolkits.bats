#!/usr/bin/env bats
# The toolkit fetchers of tests/toolkits/ (used by .ci/run's toolkit matrix): a folder already in
# the cache is used without a download; a failed download says why, exits non-zero and leaves
# nothing behind; the downloads are given up on rather than waited for. No network here: pip,
# apt-get and apt-cache are stand-ins that record how they were called. check-toolkit, which
# .ci/run runs on each folder it fetched, is tried on made-up ones.

load test_helper

setup() {
    BIN="$BATS_TEST_TMPDIR/bin"
    CALLS="$BATS_TEST_TMPDIR/calls"
    mkdir -p "$BIN"
    : >"$CALLS"
}

# stand_in NAME EXIT [STDOUT [STDERR]]: a program NAME on $BIN that records its arguments
stand_in() {
    printf '#!/bin/sh\necho "%s $*" >>"%s"\nprintf "%%s" "%s"\nprintf "%%s" "%s" >&2\nexit %s\n' \
        "$1" "$CALLS" "${3:-}" "${4:-}" "$2" >"$BIN/$1"
    chmod +x "$BIN/$1"
}

# a python3 whose pip is there but whose downloads fail as pip's do when the index says no
pip_that_fails() {
    cat >"$BIN/python3" <<EOF
#!/bin/sh
echo "python3 \$*" >>"$CALLS"
case "\$*" in
    "-m pip --version") echo "pip 23.2.1"; exit 0 ;;
    "-m pip download"*) echo "ERROR: No matching distribution found for nvidia-cuda-nvcc==13.5.*" >&2; exit 1 ;;
esac
exit 1
EOF
    chmod +x "$BIN/python3"
}

@test "fetch-cuda13: a complete folder in the cache is used as it is: nothing downloaded" {
    local dir="$BATS_TEST_TMPDIR/cache/cuda-13.5"
    mkdir -p "$dir/bin"
    printf '#!/bin/sh\n' >"$dir/bin/nvcc"
    chmod +x "$dir/bin/nvcc"
    echo 13.5 >"$dir/.complete"
    pip_that_fails
    PATH="$BIN:$PATH" run sh "$ROOT/tests/toolkits/fetch-cuda13" 13.5 "$dir"
    assert_success
    assert_output "$dir"
    assert_equal "$(cat "$CALLS")" ""
}

@test "fetch-cuda13: a failed download says why, exits non-zero, leaves nothing behind, and waits 30 s at most a connection" {
    local parent="$BATS_TEST_TMPDIR/cache"
    pip_that_fails
    PATH="$BIN:$PATH" run sh "$ROOT/tests/toolkits/fetch-cuda13" 13.5 "$parent/cuda-13.5"
    assert_failure
    assert_output --partial "No matching distribution found"
    [ ! -e "$parent/cuda-13.5" ] || fail "a folder was left at $parent/cuda-13.5"
    assert_equal "$(ls -A "$parent")" ""
    run grep -- "-m pip download" "$CALLS"
    assert_output --partial "--timeout 30"
    assert_output --partial "nvidia-cuda-nvcc==13.5.*"
    assert_output --partial "nvidia-cuda-runtime==13.5.*"
    assert_output --partial "nvidia-cuda-nvrtc==13.5.*"
}

@test "fetch-cuda12-debian: a complete folder in the cache is used as it is: no apt-get" {
    local dir="$BATS_TEST_TMPDIR/cache/cuda-12-debian"
    mkdir -p "$dir/bin"
    printf '#!/bin/sh\n' >"$dir/bin/nvcc"
    cp "$dir/bin/nvcc" "$dir/bin/nvdisasm"
    chmod +x "$dir/bin/nvcc" "$dir/bin/nvdisasm"
    echo 12.4 >"$dir/.complete"
    stand_in apt-get 1
    stand_in apt-cache 1
    PATH="$BIN:$PATH" run sh "$ROOT/tests/toolkits/fetch-cuda12-debian" "$dir"
    assert_success
    assert_output "$dir"
    assert_equal "$(cat "$CALLS")" ""
}

# apt-get and apt-cache are stand-ins, so the keyring is never read: a file of that name will do,
# on any system (DEBIAN_KEYRING)
# (dpkg-deb too: the script looks for it first, and a system that is not Debian may lack it)
stand_in_keyring() {
    export DEBIAN_KEYRING="$BATS_TEST_TMPDIR/debian-archive-keyring.gpg"
    : >"$DEBIAN_KEYRING"
    stand_in dpkg-deb 0
}

@test "fetch-cuda12-debian: no keyring to check the archive with: says which file and how to get it, downloads nothing" {
    local parent="$BATS_TEST_TMPDIR/cache"
    stand_in apt-get 0
    stand_in apt-cache 0
    stand_in dpkg-deb 0
    DEBIAN_KEYRING="$BATS_TEST_TMPDIR/none.gpg" PATH="$BIN:$PATH" \
        run sh "$ROOT/tests/toolkits/fetch-cuda12-debian" "$parent/cuda-12-debian"
    assert_failure
    assert_output "fetch-cuda12-debian: $BATS_TEST_TMPDIR/none.gpg not found (apt-get install debian-archive-keyring, or DEBIAN_KEYRING=a copy of it)"
    assert_equal "$(cat "$CALLS")" ""
    [ ! -e "$parent" ] || assert_equal "$(ls -A "$parent")" ""
}

@test "fetch-cuda12-debian: apt-get update failing says so, leaves nothing behind, touches no apt state of the machine" {
    stand_in_keyring
    local parent="$BATS_TEST_TMPDIR/cache"
    stand_in apt-get 100 "" "E: Failed to fetch http://deb.debian.org/debian/dists/sid/InRelease  Could not resolve host"
    stand_in apt-cache 0
    PATH="$BIN:$PATH" run sh "$ROOT/tests/toolkits/fetch-cuda12-debian" "$parent/cuda-12-debian"
    assert_failure
    assert_output --partial "Could not resolve host"
    assert_output --partial "apt-get update for Debian sid failed"
    assert_equal "$(ls -A "$parent")" ""
    # its own sources and lists, a time limit per connection, never the machine's
    run cat "$CALLS"
    assert_output --partial "Dir::Etc::SourceList=$parent/"
    assert_output --partial "Dir::State::Lists=$parent/"
    assert_output --partial "Acquire::http::Timeout=30"
    refute_output --partial "install"
}

@test "fetch-cuda12-debian: an archive whose toolkit is no longer 12.x is refused with the version" {
    stand_in_keyring
    local parent="$BATS_TEST_TMPDIR/cache"
    stand_in apt-get 0
    stand_in apt-cache 0 "nvidia-cuda-toolkit:
  Installed: (none)
  Candidate: 13.0.88~13.0.2-1
"
    PATH="$BIN:$PATH" run sh "$ROOT/tests/toolkits/fetch-cuda12-debian" "$parent/cuda-12-debian"
    assert_failure
    assert_output --partial "nvidia-cuda-toolkit is '13.0.88~13.0.2-1', not 12.x"
    run grep -c "download" "$CALLS"
    assert_output 0
    assert_equal "$(ls -A "$parent")" ""
}

# check-toolkit: .ci/run runs it on each folder it fetched, before building with it. Here it
# meets made-up toolkits: an nvcc that prints a release and a list of architectures, and the
# files the build needs (empty).
fake_toolkit() { # fake_toolkit DIR RELEASE "CODES" FILE...
    local dir="$1" release="$2" codes="$3" f
    shift 3
    mkdir -p "$dir/bin"
    printf '#!/bin/sh\ncase "$1" in\n--version) echo "Cuda compilation tools, release %s, V%s.1" ;;\n--list-gpu-code) printf "%%s\\n" %s ;;\nesac\n' \
        "$release" "$release" "$codes" >"$dir/bin/nvcc"
    chmod +x "$dir/bin/nvcc"
    for f in "$@"; do
        mkdir -p "$dir/$(dirname "$f")"
        : >"$dir/$f"
    done
}
FILES13="lib64/libcudart_static.a lib64/libnvrtc.so lib64/libcupti.so include/cuda.h include/nvrtc.h include/cupti.h include/crt/host_defines.h nvvm/bin/cicc"
FILES12="$FILES13 lib64/libnvrtc.so.12 lib64/libcupti.so.12 lib64/stubs/libcuda.so bin/cuobjdump bin/nvdisasm nvvm/libdevice/libdevice.10.bc"

@test "check-toolkit: a CUDA 13.5 folder with all it needs passes, and says what it found" {
    local tk="$BATS_TEST_TMPDIR/cuda-13.5"
    # shellcheck disable=SC2086
    fake_toolkit "$tk" 13.5 "sm_75 sm_80 sm_90 sm_100 sm_120" $FILES13
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 13.5
    assert_success
    assert_output "nvcc 13.5, sm_75 to sm_120, 8 files"
}

@test "check-toolkit: another release, a missing architecture or file, or one too old, is named and fails" {
    local tk="$BATS_TEST_TMPDIR/tk"
    # shellcheck disable=SC2086
    fake_toolkit "$tk" 13.0 "sm_75 sm_120" $FILES13
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 13.5
    assert_failure 1
    assert_output "check-toolkit: $tk: nvcc is release 13.0, not 13.5"
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 12
    assert_failure 1
    assert_output "check-toolkit: $tk: nvcc is release 13.0, not 12.x"
    rm -rf "$tk"
    # shellcheck disable=SC2086
    fake_toolkit "$tk" 13.5 "sm_75 sm_90" $FILES13
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 13.5
    assert_failure 1
    assert_output "check-toolkit: $tk: nvcc 13.5 does not target sm_120 (--list-gpu-code)"
    rm -rf "$tk"
    # shellcheck disable=SC2086
    fake_toolkit "$tk" 12.4 "sm_50 sm_70 sm_90 sm_120" $FILES12
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 12
    assert_failure 1
    assert_output "check-toolkit: $tk: nvcc 12.4 targets sm_120, which release 12 does not"
    rm -rf "$tk"
    # shellcheck disable=SC2086
    fake_toolkit "$tk" 12.4 "sm_50 sm_70 sm_90" ${FILES12% nvvm/libdevice/libdevice.10.bc}
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 12
    assert_failure 1
    assert_output "check-toolkit: $tk: nvvm/libdevice/libdevice.10.bc is missing"
    # shellcheck disable=SC2086
    fake_toolkit "$tk" 12.4 "sm_50 sm_70 sm_90" $FILES12
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 12
    assert_success
    assert_output "nvcc 12.4, sm_50 to sm_90, 14 files"
    run sh "$ROOT/tests/toolkits/check-toolkit" "$BATS_TEST_TMPDIR/none" 12
    assert_failure 1
    assert_output "check-toolkit: $BATS_TEST_TMPDIR/none: no bin/nvcc"
    run sh "$ROOT/tests/toolkits/check-toolkit" "$tk" 11
    assert_failure 2
    assert_output "check-toolkit: RELEASE must be 12 or 13.x, not '11'"
}

# fake_bundle DIR SOLUTION_EXIT [GRADER_SKIPS]: a bundle as gpu-bundle packs one, made up: lesson
# 01_fake (a program that ends "RESULT: PASS"), its grader grading/judge/01_fake.bats (two
# exercises, each test running EXERCISE_BIN/NAME and wanting exit 0), a reference solution of
# each exiting SOLUTION_EXIT, the untouched exercises exiting 1. GRADER_SKIPS=yes: the grader
# skips exercise b, "needs CUDA 12.5" (as a grader does for what a toolkit cannot build).
fake_bundle() {
    local t="$BATS_TEST_TMPDIR/tree-$RANDOM" e
    mkdir -p "$t/01_fake/build/solutions" "$t/01_fake/build/exercises" "$t/grading/judge" "$1"
    printf '#!/bin/sh\necho "1. a step"\necho "RESULT: PASS (3 checks)"\n' >"$t/01_fake/build/fake"
    for e in a b; do
        printf '#!/bin/sh\nexit %s\n' "$2" >"$t/01_fake/build/solutions/$e"
        printf '#!/bin/sh\nexit 1\n' >"$t/01_fake/build/exercises/$e"
    done
    chmod +x "$t"/01_fake/build/fake "$t"/01_fake/build/*/*
    {
        echo '@test "a: it runs" { "$EXERCISE_BIN/a"; }'
        echo '@test "a: it runs again" { "$EXERCISE_BIN/a"; }'
        if [ "${3:-}" = yes ]; then echo '@test "b: it runs" { skip "needs CUDA 12.5"; }'
        else echo '@test "b: it runs" { "$EXERCISE_BIN/b"; }'; fi
    } >"$t/grading/judge/01_fake.bats"
    echo abc1234 >"$t/.commit"
    tar -C "$t" -cJf "$1/tree.tar.xz" .
}

@test "gpu-run: exit 0 when every lesson passes and every grader is right, non-zero when a grader is wrong; OUT by default a folder of its own" {
    stand_in nvidia-smi 0 "Stand-in GPU, 580.00, 9.0"
    local w="$BATS_TEST_TMPDIR/work"
    mkdir -p "$w/.gpu"
    fake_bundle "$w/.gpu/good" 0
    cd "$w"
    PATH="$BIN:$PATH" run env -u OUT bash "$ROOT/tests/toolkits/gpu-run" good:01
    assert_success
    assert_line --partial "good 01_fake: exit 0"
    assert_line --regexp "^good grader 01_fake solutions: bats exit 0, [0-9]+ s: a=pass b=pass $"
    assert_line --regexp "^good grader 01_fake exercises: bats exit 1, [0-9]+ s: a=FAIL b=FAIL $"
    assert_line "gpu-run: 3 right, 0 wrong (each lesson PASS, each grader passing the reference solutions and failing the untouched exercises)"
    [ -s "$w/gpu-run-out/summary.txt" ] && [ -s "$w/gpu-run-out/good.log" ] || fail "no summary in $w/gpu-run-out"
    [ ! -e /summary.txt ] || [ /summary.txt -ot "$w/gpu-run-out/summary.txt" ] || fail "it wrote /summary.txt"
    # a reference solution that fails its grader: wrong, exit 1; a bundle given as a path
    fake_bundle "$BATS_TEST_TMPDIR/bad" 1
    PATH="$BIN:$PATH" OUT="$BATS_TEST_TMPDIR/out" run bash "$ROOT/tests/toolkits/gpu-run" "$BATS_TEST_TMPDIR/bad:01"
    assert_failure 1
    assert_line --regexp "^bad grader 01_fake solutions: .* a=FAIL b=FAIL +<-- WRONG$"
    assert_line "gpu-run: 2 right, 1 wrong (each lesson PASS, each grader passing the reference solutions and failing the untouched exercises)"
    [ -s "$BATS_TEST_TMPDIR/out/summary.txt" ] || fail "OUT was not used"
    # a grader that says it cannot grade an exercise with this toolkit: not gradable, not wrong
    fake_bundle "$w/.gpu/skips" 0 yes
    PATH="$BIN:$PATH" run bash "$ROOT/tests/toolkits/gpu-run" skips:01
    assert_success
    assert_line --regexp "solutions: .* a=pass b=skip\(not gradable: needs CUDA 12.5\) $"
    # no such bundle, or no lessons given: exit 2, one line
    PATH="$BIN:$PATH" run bash "$ROOT/tests/toolkits/gpu-run" nothere:01
    assert_failure 2
    assert_output --partial "gpu-run: no bundle at .gpu/nothere"
    PATH="$BIN:$PATH" run bash "$ROOT/tests/toolkits/gpu-run" good
    assert_failure 2
    assert_output --partial "usage:"
}
