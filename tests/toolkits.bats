#!/usr/bin/env bats
# The toolkit fetchers of tests/toolkits/ (used by .ci/run's toolkit matrix): a folder already in
# the cache is used without a download; a failed download says why, exits non-zero and leaves
# nothing behind; the downloads are given up on rather than waited for. No network here: pip,
# apt-get and apt-cache are stand-ins that record how they were called. Where .ci/run has
# fetched the toolkits, the last tests check that the cached folders are the toolkits they claim.

load test_helper

setup() {
    CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cuda-lessons"
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

@test "fetch-cuda12-debian: apt-get update failing says so, leaves nothing behind, touches no apt state of the machine" {
    [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || skip "not a Debian system (no debian-archive-keyring)"
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
    [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || skip "not a Debian system (no debian-archive-keyring)"
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

# The cached toolkits (.ci/run fetches them; skipped with the command where they are not there).
cached_toolkit() {
    tk="$CACHE/$1"
    [ -f "$tk/.complete" ] && [ -x "$tk/bin/nvcc" ] \
        || skip "no $1 in $CACHE (sh tests/toolkits/$2 fetches it)"
}

@test "the cached CUDA 13.5 from pip wheels is a toolkit: nvcc 13.5, sm_120, the static runtime, NVRTC and CUPTI" {
    local tk
    cached_toolkit cuda-13.5 "fetch-cuda13 13.5"
    run "$tk/bin/nvcc" --version
    assert_output --partial "release 13.5"
    run "$tk/bin/nvcc" --list-gpu-code
    assert_line sm_75
    assert_line sm_120
    refute_line sm_70
    for f in lib64/libcudart_static.a lib64/libnvrtc.so lib64/libcupti.so include/cuda.h include/nvrtc.h \
             include/cupti.h include/crt/host_defines.h nvvm/bin/cicc; do
        [ -e "$tk/$f" ] || fail "$tk/$f is missing"
    done
}

@test "the cached CUDA 12.x from Debian is a toolkit: nvcc 12.x up to sm_90, the static runtime, NVRTC 12, CUPTI, the stub driver" {
    local tk
    cached_toolkit cuda-12-debian fetch-cuda12-debian
    run "$tk/bin/nvcc" --version
    assert_output --regexp "release 12\.[0-9]+"
    run "$tk/bin/nvcc" --list-gpu-code
    assert_line sm_70
    assert_line sm_90
    refute_line sm_120
    for f in bin/cuobjdump bin/nvdisasm lib64/libcudart_static.a lib64/libnvrtc.so.12 lib64/libcupti.so.12 lib64/stubs/libcuda.so \
             include/cuda.h include/nvrtc.h include/cupti.h include/crt/host_defines.h nvvm/bin/cicc \
             nvvm/libdevice/libdevice.10.bc; do
        [ -e "$tk/$f" ] || fail "$tk/$f is missing"
    done
}
