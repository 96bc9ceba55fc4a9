# tests/test_helper.bash - loaded by every test file:  load test_helper
#
#   ROOT                  the repository root
#   lesson_bin NN_name    the path of a lesson's program (01_hello_runtime -> .../build/hello_runtime;
#                         LESSON_BUILD=build-hostsan: the HOST_SANITIZE=1 build instead);
#                         lesson_bin -v VAR NN_name sets VAR to it, with no subshell
#   copy_tree SRC DST     copy the source tree (git's file list, or without git: everything but
#                         .git, build output and .gpu), as a tarball or any copy would have it
#   list_lessons DIR      the NN_name folders with a Makefile; fails, saying so, when there is none
#   require_gpu           skip (with the reason) when no GPU is usable here;
#                         with REQUIRE_GPU=1 fail instead of skipping
#   normalize             filter: replaces what varies from run to run or card to card
#   stub_driver_dir       a directory whose libcuda.so.1 is the toolkit's stub driver
#   test_shims DIR [DRIVER]   tests/shims built into DIR once (the forwarding libcuda.so.1 over
#                         DRIVER, default the one the loader finds; copy_loop, hold_memory, ...;
#                         without DRIVER, a link to tests/run's build of them where there is one)
#   shim_over_stub PROGRAM [VAR=value ...]   `run` PROGRAM behind the forwarding driver over the
#                         stub, with the variables that make it report another machine
#   no_driver_env         prints an LD_LIBRARY_PATH under which no libcuda.so.1 can load
#   assert_usage_error    after `run`: exit 2 and the usage printed
#   run_with_no_visible_device / run_with_stub_driver / run_with_no_driver CMD...
#                         `run` CMD where CUDA cannot run and assert exit 77 with check.c's
#                         plain-English reason ($output stays for the caller's own checks)
#   run_lesson            on a GPU, runs $BIN (with the LESSON_ARGS array, if set) once per test
#                         file (again, 3 runs at most, while a passing run left a timing claim
#                         [n/j] for noise: NOISE_NJ); sets LESSON_STATUS, LESSON_OUT (stdout),
#                         LESSON_ERR (stderr)
#   run_grader LESSON solutions|exercises [REGEX]   `run` the lesson's grader (grading/judge/)
#                         on those programs; with REGEX only its tests so named (bats -f)
#   assert_solutions_pass LESSON REGEX N   on a GPU, the reference solutions pass the N tests of
#                         the lesson's grader so named (REGEX "": all of them; skips in a copy
#                         without solutions/)
#   assert_grader_parts LESSON REGEX...   every test of the lesson's grader matches exactly one
#                         REGEX (a grader split into a shared part and a part alone on the GPU)
#   assert_claim TEXT     run_lesson printed the line "  [ok]   TEXT..", or the test skips where
#                         the run left claims [n/j] for noise (skip_for_noise, assert_judged,
#                         assert_same_or_noisy)
#   fatbin_images FATBIN  the images of a fatbinary, one sm_NN (SASS) or compute_NN (PTX) a line
#   cuobjdump_path        the toolkit's cuobjdump, where there is one
# bats sources a test file (and so this helper) again for every test. The libraries' load.bash
# find their files with a $(dirname ...) per file, two processes each: about 30 ms a test, 8 s
# of CPU over the suite. The same files are sourced here with their folder written in; a
# load.bash of another shape goes through bats_load_library as before.
load_bats_library() {
    local dir text
    for dir in ${BATS_LIB_PATH//:/ }; do
        [ -f "$dir/$1/load.bash" ] || continue
        IFS= read -r -d '' text <"$dir/$1/load.bash" || true
        text="${text//'$(dirname "${BASH_SOURCE[0]}")'/$dir/$1}"
        case "$text" in
            *'$('*|*BASH_SOURCE*) break ;;
        esac
        eval "$text"
        return
    done
    bats_load_library "$1"
}
load_bats_library bats-support
load_bats_library bats-assert
# bats runs a DEBUG trap for every command of a test, so bats-support's line-by-line loops cost
# about 0.15 ms a line there: a failed assertion on a program's 5000 lines of output (what the
# sandbox lets a graded program print) took 3 s to format, two such tests under a loaded class
# more than the time limit. The two loops that see the whole output, with the same output:
batslib_count_lines() {
    printf '%s' "$1" | LC_ALL=C awk 'END { print NR }'
}
batslib_prefix() {
    BATSLIB_PREFIX="${1:-  }" LC_ALL=C awk '{ print ENVIRON["BATSLIB_PREFIX"] $0 }'
}

# the repository: this file's folder's parent (test files in tests/opt-in load it too)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

# Started from `make -j2 test` or `make -s test`, bats inherits that make's flags (and a
# jobserver whose pipes it does not have): the builds the tests run must not see them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES MAKEOVERRIDES

# lesson_bin -v VAR NN_name: the same path into VAR, with no subshell (a lesson file's setup()
# runs for every test: $(lesson_bin ...) was 5 ms of each, 1.5 s of make test's CPU)
lesson_bin() {
    if [ "$1" = -v ]; then
        printf -v "$2" '%s' "$ROOT/$3/${LESSON_BUILD:-build}/${3#*_}"
        return
    fi
    local dir="$1"
    echo "$ROOT/$dir/${LESSON_BUILD:-build}/${dir#*_}"
}

copy_tree() {
    local src="$1" dst="$2"
    mkdir -p "$dst" || return 1
    if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 \
       && [ "$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd -P)" = "$(cd "$src" && pwd -P)" ] \
       && git -C "$src" ls-files -co --exclude-standard >/dev/null 2>&1; then
        # (a file git still lists but the work tree no longer has, deleted and not yet committed,
        # is left out: tar would warn about it)
        (cd "$src" && git ls-files -co --exclude-standard -z | grep -zv '^\.gpu/' \
            | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
            | xargs -0 tar cf -) | (cd "$dst" && tar xf -)
    else # a release tarball, or a checkout git will not read: everything but the build output
        (cd "$src" && tar cf - --exclude=.git --exclude=.gpu --exclude='./[0-9][0-9]_*/build' \
            --exclude='./[0-9][0-9]_*/build-hostsan' --exclude='./[0-9][0-9]_*/build-ptx75' .) | (cd "$dst" && tar xf -)
    fi
}

list_lessons() {
    local dir="$1" found
    found="$(cd "$dir" 2>/dev/null && ls -d [0-9][0-9]_*/Makefile 2>/dev/null | sed 's,/Makefile$,,')"
    if [ -z "$found" ]; then
        echo "no lesson (NN_name/Makefile) found in $dir" >&2
        return 1
    fi
    echo "$found"
}

# gpu_listed, gpu_reason: is a GPU usable here (tests/run asks the same)
source "${BASH_SOURCE[0]%/*}/gpu.bash"

require_gpu() {
    local reason
    reason="$(gpu_reason)"
    if [ -z "$reason" ] && [ -n "${CUDA_LESSONS_UNTAGGED:-}" ]; then
        fail "this test uses the GPU but has no tag: put the line '# bats test_tags=gpu' above it (tests/run runs untagged tests beside other files)"
    fi
    [ -z "$reason" ] && return 0
    if [ "${REQUIRE_GPU:-0}" = 1 ]; then
        fail "REQUIRE_GPU=1 but $reason"
    fi
    skip "$reason"
}

gpu_count() {
    nvidia-smi -L 2>/dev/null | grep -c '^GPU '
}

# Replaces: hexadecimal addresses -> 0xADDR; numbers with a decimal point -> #.#; a number
# directly followed by a unit of time, size, rate or ratio -> # unit; the card's name
# (printed by the lessons in double quotes, starting with NVIDIA) -> "GPU".
normalize() {
    sed -E \
        -e 's/0x[0-9a-fA-F]+/0xADDR/g' \
        -e 's/"NVIDIA[^"]*"/"GPU"/g' \
        -e 's/[0-9]+\.[0-9]+/#.#/g' \
        -e 's/(^|[^A-Za-z_0-9.#])[0-9]+( ?(ns|us|ms|s|B|KiB|MiB|GiB|TiB|GB\/s|MB\/s|%|x)([^A-Za-z_0-9]|$))/\1#\2/g'
}

# run_grader LESSON KIND [FILTER]: the grader over the lesson's build/KIND (solutions or
# exercises), its programs first linked as the graded build links them: with the stand-in
# driver beside them (WATCH_DRIVER=1, grading/harness/driver_watch), which the graders count
# the resources with; a program linked without it is linked again.
run_grader() {
    local d="$ROOT/$1/build/$2" e
    local -a progs=()
    for e in $(awk '!/^#/ && NF { print $1 }' "$ROOT/$1/exercises/points" 2>/dev/null); do
        [ -f "$d/libcuda.so.1" ] && readelf -d "$d/$e" 2>/dev/null | grep -q 'R.*PATH.*\$ORIGIN' || rm -f "$d/$e"
        progs+=("build/$2/$e")
    done
    [ "${#progs[@]}" = 0 ] || make --no-print-directory -s -k -C "$ROOT/$1" WATCH_DRIVER=1 "${progs[@]}" >/dev/null 2>&1 || true
    EXERCISE_BIN="$d" run "${BATS:-bats}" ${3:+-f "$3"} "$ROOT/grading/judge/$1.bats"
}

assert_solutions_pass() {
    [ -d "$ROOT/$1/solutions" ] || skip "no solutions/ in this copy (a student's template)"
    require_gpu
    run_grader "$1" solutions "$2"
    assert_success
    assert_line "1..$3"
}

assert_grader_parts() {
    local grader="$ROOT/grading/judge/$1.bats" names name regex n
    shift
    names="$(sed -n -E 's/^@test "(.*)" \{$/\1/p' "$grader")"
    [ -n "$names" ] || fail "no tests found in $grader"
    while IFS= read -r name; do
        n=0
        for regex in "$@"; do
            [[ ! "$name" =~ $regex ]] || n=$((n + 1))
        done
        [ "$n" -eq 1 ] || fail "the grader's test \"$name\" is in $n of the parts ($*)"
    done <<<"$names"
}

# build_common_probe SOURCE OUTPUT: builds a small test program against common/ (check.c, the
# Driver API loader, platform.c, gpu_shared.c) and the static CUDA runtime; the compiler's
# messages go to OUTPUT.log.
# Never fails: the caller checks that OUTPUT exists and shows the log when it does not.
# (kept in the build cache, keyed by its sources, common/'s, the toolkit's headers and the
# compilers: five of these builds took 3 s of make test's CPU)
build_common_probe() {
    local cuda cache key
    cuda="$(cuda_root)"
    cache="$(build_cache_root)"
    if [ -n "$cache" ]; then
        key="probe-$(build_cache_key "$1" "${2##*/}" "$ROOT"/common/*.[ch] "$cuda/include/cuda.h" "$cuda/include/cuda_runtime_api.h")"
        if [ -x "$cache/$key/${2##*/}" ] && cp "$cache/$key/${2##*/}" "$2"; then
            echo "(from $cache/$key)" >"$2.log"
            return 0
        fi
    fi
    cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/common" -I"$cuda/include" \
        "$1" "$ROOT/common/check.c" "$ROOT/common/driver_loader.c" "$ROOT/common/platform.c" \
        "$ROOT/common/gpu_shared.c" \
        -L"$cuda/lib64" -L"$cuda/targets/x86_64-linux/lib" -lcudart_static -ldl -lpthread -lrt \
        -o "$2" >"$2.log" 2>&1 || true
    [ -z "$cache" ] || [ ! -x "$2" ] || build_cache_keep "$cache/$key" "$2"
}

# The build cache (readme_build, build_common_probe, the doctor's probe): a folder per key, the
# key a hash of what decides the build (its inputs' content, the compilers' paths and versions),
# so that a changed input is a new key, built again. CUDA_LESSONS_BUILD_CACHE=DIR, default
# ~/.cache/cuda-lessons/builds (XDG_CACHE_HOME); off: nothing kept, every build made.
build_cache_root() {
    local d="${CUDA_LESSONS_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-lessons/builds}"
    [ "$d" = off ] || echo "$d"
}
# build_cache_key WORD_OR_FILE...: the key of those (a file by its content, anything else as given)
build_cache_key() {
    local f tool
    {
        for f in "$@"; do
            printf '%s\n' "$f"
            [ ! -f "$f" ] || sha256sum <"$f"
        done
        for tool in cc gcc g++ nvcc; do
            command -v "$tool" && "$tool" --version 2>&1
        done
    } | sha256sum | cut -c1-32
}
# build_cache_keep DIR PATH...: the files or folders PATH kept as DIR, whole or not at all (a copy
# moved into place: two runs keeping the same key leave one); status 0 either way.
build_cache_keep() {
    local dir="$1" tmp
    shift
    [ ! -e "$dir" ] || return 0
    mkdir -p "${dir%/*}" 2>/dev/null || return 0
    tmp="$(mktemp -d "${dir%/*}/.new.XXXXXX" 2>/dev/null)" || return 0
    if cp -r "$@" "$tmp/" && mv -T "$tmp" "$dir" 2>/dev/null; then return 0; fi
    rm -rf "$tmp"
    return 0
}

# test_shims without DRIVER where tests/run built none for the loader's driver (no GPU here): the driver
# tests/shims/build would forward to (default_shim_driver), and where that is the toolkit's stub,
# tests/run's build over the stub (five files built their own copy of it: 5 s of CPU).
default_shim_driver() {
    local cuda real f
    cuda="$(cuda_root)"
    real="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64|libcuda\.so\.1 .*AArch64/{print $NF; exit}')"
    for f in "$real" /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 \
             "$cuda/lib64/stubs/libcuda.so" "$cuda/targets/x86_64-linux/lib/stubs/libcuda.so"; do
        if [ -n "$f" ] && [ -f "$f" ]; then
            readlink -f "$f"
            return 0
        fi
    done
    return 1
}

# test_shims DIR [DRIVER]: tests/shims built into DIR (once), forwarding to DRIVER (a
# libcuda.so.1 path; default: the one the loader finds). Fails the test with the build's output.
# Where tests/run built them once for the whole run (a folder that gets a file .built, or
# .failed: CUDA_LESSONS_SHIMS without DRIVER, CUDA_LESSONS_STUB_SHIMS for the driver its .driver
# file names, the toolkit's stub), DIR becomes a link to that folder once built.
test_shims() {
    local dir="$1" i shared=""
    [ -e "$dir/libcuda.so.1" ] && [ -x "$dir/copy_loop" ] && return 0
    if [ $# -eq 1 ] && [ -z "${CUDA_LESSONS_SHIMS:-}" ] && [ -n "${CUDA_LESSONS_STUB_SHIMS:-}" ] \
        && [ -f "$CUDA_LESSONS_STUB_SHIMS.driver" ] \
        && [ "$(default_shim_driver)" = "$(cat "$CUDA_LESSONS_STUB_SHIMS.driver")" ]; then
        shared="$CUDA_LESSONS_STUB_SHIMS"
    elif [ $# -eq 1 ]; then
        shared="${CUDA_LESSONS_SHIMS:-}"
    elif [ -n "${CUDA_LESSONS_STUB_SHIMS:-}" ] && [ -f "$CUDA_LESSONS_STUB_SHIMS.driver" ] \
        && [ "$(readlink -f "$2")" = "$(cat "$CUDA_LESSONS_STUB_SHIMS.driver")" ]; then
        shared="$CUDA_LESSONS_STUB_SHIMS"
    fi
    if [ -n "$shared" ] && [ -d "$shared" ] && [ ! -e "$dir" ]; then
        for i in $(seq 600); do   # 60 s at most; a build takes a second or two
            [ ! -e "$shared/.failed" ] || break
            if [ -e "$shared/.built" ]; then
                ln -s "$shared" "$dir"
                return 0
            fi
            sleep 0.1
        done
    fi
    bash "$ROOT/tests/shims/build" "$dir" ${2:+"$2"} >"$dir.log" 2>&1 \
        || fail "tests/shims did not build: $(cat "$dir.log")"
}

# shim_over_stub PROGRAM [VAR=value ...]: `run` PROGRAM with the forwarding driver of tests/shims
# over the toolkit's stub driver: the shim answers cuInit and the device queries, so a program
# reads the platform (as the variables make it report it) and prints its decision before the
# first call that needs a real GPU reaches the stub and stops it.
shim_over_stub() {
    local program="$1"
    shift
    [ -f "$ROOT/tests/shims/build" ] || skip "tests/shims is not in this tree"
    toolkit_stub >/dev/null || skip "no stub libcuda.so in the CUDA toolkit"
    stub_shims "$BATS_FILE_TMPDIR/shim-stub"
    LD_LIBRARY_PATH="$BATS_FILE_TMPDIR/shim-stub" run env "$@" "$program"
}

# stub_shims DIR: tests/shims in DIR forwarding to the toolkit's stub libcuda.so (tests/run's
# build, linked, where it made one: test_shims); status 1 where the toolkit has no stub.
stub_shims() {
    local stub
    stub="$(toolkit_stub)" || return 1
    test_shims "$1" "$(readlink -f "$stub")"
}

# The CUDA toolkit's stub libcuda.so, reachable as libcuda.so.1 through LD_LIBRARY_PATH.
stub_driver_dir() {
    local stub dir="$BATS_FILE_TMPDIR/stub-driver"
    stub="$(toolkit_stub)" || return 1
    mkdir -p "$dir"
    ln -sf "$stub" "$dir/libcuda.so.1"
    echo "$dir"
}

# Runs "$@" (through bats' `run`) on a machine where no libcuda.so.1 can be loaded, as on a
# machine without the NVIDIA driver. Where the driver is installed, that needs root: a private
# mount namespace hides each libcuda.so.1 behind /dev/null (dlopen then fails, as it would with
# no file). Elsewhere (CI) nothing needs hiding. Skips with the reason when neither works
# (not root, no unshare, or a container that forbids mount namespaces: docker without
# CAP_SYS_ADMIN): only a run that really had no driver counts.
driver_libraries() {
    local libs
    libs="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF}')"
    libs="$libs $(ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so.1 2>/dev/null || true)"
    echo $libs | tr ' ' '\n' | sort -u | tr '\n' ' '
}

run_without_driver() {
    local libs why
    libs="$(driver_libraries)"
    if [ -z "${libs// /}" ]; then
        run "$@"
        return
    fi
    if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
        skip "the NVIDIA driver is installed here and hiding it needs root and unshare"
    fi
    # Can this process make a mount namespace and bind-mount in it? Asked first, so that an
    # exit status of the command itself is never taken for "could not isolate".
    if ! why="$(unshare -m sh -c 'mount --bind /dev/null /dev/null' 2>&1)"; then
        skip "cannot hide libcuda.so.1 here: a private mount namespace is not allowed (${why:-unshare -m failed}); needs root with CAP_SYS_ADMIN"
    fi
    local script='for f in $HIDE; do mount --bind /dev/null "$f" || exit 99; done; exec "$@"'
    HIDE="$libs" run unshare -m sh -c "$script" sh "$@"
    [ "$status" -ne 99 ] || skip "could not hide libcuda.so.1 in a mount namespace"
}

# After `run`: the command rejected its command line (exit 2) and printed the usage.
assert_usage_error() {
    assert_equal "$status" 2
    assert_output --partial "usage:"
}

# A timing claim that a busy host left "[n/j]" for its noise (repetitions that spread, stages
# that changed pace, a control measurement that moved, the GPU waiting for the host): the
# lesson was right not to judge it, and the tests, which want it judged, run the lesson again.
NOISE_NJ='^ *\[n/j\] .* - not judged here: .*(too noisy|unsteady|the control copy|spread by|spread [0-9]+%|by itself \(the control\)|the (GPU|machine).s pace|waited for the host|something else)'

# lesson_tries OUT ERR COMMAND...: COMMAND's stdout into OUT, its stderr into ERR (into OUT
# when ERR is -), again, 3 runs at most, while it passed but left claims [n/j] for noise; of
# those, the run with the fewest such claims is kept; a run that failed is kept as it is.
# Returns the kept run's status. A file the command writes itself (--csv FILE among its
# arguments) is the kept run's too.
lesson_tries() {
    local out="$1" err="$2" rc _ n best="" csv="" a prev=""
    shift 2
    for a in "$@"; do [ "$prev" != --csv ] || csv="$a"; prev="$a"; done
    for _ in 1 2 3; do
        rc=0
        if [ "$err" = - ]; then "$@" >"$out.try" 2>&1 || rc=$?; else "$@" >"$out.try" 2>"$err.try" || rc=$?; fi
        n="$(grep -cE "$NOISE_NJ" "$out.try" || true)"
        if [ "$rc" -ne 0 ] || [ -z "$best" ] || [ "$n" -lt "$best" ]; then
            best="$n"
            mv -f "$out.try" "$out"
            [ "$err" = - ] || mv -f "$err.try" "$err"
            if [ -n "$csv" ]; then
                if [ -f "$csv" ]; then cp -f -- "$csv" "$csv.kept"; else rm -f -- "$csv.kept"; fi
            fi
        fi
        [ "$rc" -eq 0 ] && [ "$n" -gt 0 ] || break
    done
    rm -f -- "$out.try"
    [ "$err" = - ] || rm -f -- "$err.try"
    if [ -n "$csv" ]; then
        if [ -f "$csv.kept" ]; then mv -f -- "$csv.kept" "$csv"; else rm -f -- "$csv"; fi
    fi
    return "$rc"
}

# skip_for_noise OUTPUT WANTED: a test wanted a claim of OUTPUT judged (WANTED says which) and
# it was not. Where OUTPUT, the best of lesson_tries' runs (or until_judged's last), has no
# [FAIL] but claims [n/j] for noise, the test is skipped with the first of them: the lesson
# was right, and on this machine, now, the claim cannot be judged (it happened on the H100s
# here, in runs of several minutes). Returns otherwise, for the caller to fail.
skip_for_noise() {
    local line
    ! grep -qF '[FAIL]' <<<"$1" || return 0
    line="$(grep -m1 -E "$NOISE_NJ" <<<"$1")" || return 0
    skip "not judged in 3 runs, too noisy here (wanted: $2): $(sed -E 's/^ *//' <<<"$line" | cut -c1-240)"
}

# assert_same_or_noisy LESSON_OUTPUT: after `run diff -u EXPECTED ACTUAL`, passes where they
# are the same, skips where LESSON_OUTPUT left claims [n/j] for noise (skip_for_noise: those lines
# differ from the expected [ok] ones), and fails with the diff otherwise.
assert_same_or_noisy() {
    [ "$status" -eq 0 ] && return 0
    skip_for_noise "$1" "the claims as tests/expected has them"
    fail "$output"
}

# assert_judged ERE: $output has a line matching ERE (a claim judged "[ok]"), or the test is
# skipped for noise (skip_for_noise), or it fails.
assert_judged() {
    grep -qE -- "$1" <<<"$output" && return 0
    skip_for_noise "$output" "$1"
    fail "no line matches: $1"
}

run_lesson() {
    require_gpu
    if [ ! -f "$BATS_FILE_TMPDIR/status" ]; then
        local rc=0
        lesson_tries "$BATS_FILE_TMPDIR/stdout" "$BATS_FILE_TMPDIR/stderr" \
            "$BIN" ${LESSON_ARGS[@]+"${LESSON_ARGS[@]}"} || rc=$?
        echo "$rc" >"$BATS_FILE_TMPDIR/status"
    fi
    LESSON_STATUS="$(cat "$BATS_FILE_TMPDIR/status")"
    LESSON_OUT="$(cat "$BATS_FILE_TMPDIR/stdout")"
    LESSON_ERR="$(cat "$BATS_FILE_TMPDIR/stderr")"
}

assert_claim() {
    run_lesson
    grep -qF -- "[ok]   $1" <<<"$LESSON_OUT" && return 0
    skip_for_noise "$LESSON_OUT" "[ok]   $1"
    fail "no line '  [ok]   $1' in the lesson's output; its claims: $(grep -E '^ *\[(ok|n/j|FAIL)\]' <<<"$LESSON_OUT")"
}

# ---- the three machines a lesson cannot run on ---------------------------------------------

run_with_no_visible_device() {
    CUDA_VISIBLE_DEVICES= run "$@"
    assert_equal "$status" 77
    assert_output --partial "cannot run here"
    refute_output --partial "RESULT:"
    if gpu_listed; then # with no driver at all, that is the reason given instead
        assert_output --partial "no CUDA device is visible"
    fi
}

run_with_stub_driver() {
    local dir
    dir="$(stub_driver_dir)" || skip "no stub libcuda.so in the CUDA toolkit"
    LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run "$@"
    assert_equal "$status" 77
    assert_output --partial "libcuda.so.1 is the CUDA toolkit's stub library"
    # the explanation is the only message: no raw "(no name) (34): (no message)" line before it
    refute_output --partial "(no name)"
}

run_with_no_driver() {
    run_without_driver "$@"
    assert_equal "$status" 77
    assert_output --partial "no NVIDIA driver: libcuda.so.1 could not be loaded"
    # the explanation is the only message: no raw "driver version is insufficient" before it
    refute_output --partial "cudaErrorInsufficientDriver"
    refute_output --partial "failed:"
}

# The images of a fatbinary, one "sm_NN" (SASS) or "compute_NN" (PTX) per line, read from its
# headers (the layout tools.c reads; cuobjdump lists the same where it is installed).
fatbin_images() {
    local f="$1" off=16 end kind hdr size arch
    end=$(( $(od -An -t u8 -j 8 -N 8 "$f") + 16 ))
    while [ "$off" -lt "$end" ]; do
        kind=$(( $(od -An -t u2 -j "$off" -N 2 "$f") ))
        hdr=$(( $(od -An -t u4 -j $((off + 4)) -N 4 "$f") ))
        size=$(( $(od -An -t u8 -j $((off + 8)) -N 8 "$f") ))
        arch=$(( $(od -An -t u4 -j $((off + 28)) -N 4 "$f") ))
        if [ "$kind" = 2 ]; then echo "sm_$arch"; else echo "compute_$arch"; fi
        off=$((off + hdr + size))
    done
}

cuobjdump_path() {
    local c
    c="$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/cuobjdump"
    [ -x "$c" ] && echo "$c" && return 0
    command -v cuobjdump
}

# demo_nvcc_line README (tests/layout.bats checks every lesson has one; the lessons' files and
# demos.bats build by it): the README's nvcc line for the demo: the first line that starts "nvcc "
# in a ```sh block under "## The code" (with its "\" continuation lines joined).
demo_nvcc_line() {
    awk '/^## / { code = ($0 == "## The code") ; next }
         code && /^```/ { if (!fence) { fence = 1; sh = ($0 == "```sh") } else fence = 0; next }
         code && fence && sh && (/^nvcc / || cont) {
             line = line (cont ? " " : "") $0; cont = sub(/[ \t]*\\$/, "", line)
             if (!cont) { print line; exit }
         }' "$1"
}

# readme_build DIR LINE [KEYDIR]: `run` LINE (a README's own build line, for bash) in DIR, a copy
# of a lesson folder alone, with the files it made kept in the build cache (above), keyed by the
# line, every file of KEYDIR (default DIR: its path and content; a folder above DIR where the
# line may read beside it, as layout.bats' copy with common/) and the compilers. The same inputs
# build once: a hit copies those files into DIR, status 0, and the output says so. (Each such
# build took 1.3 s of nvcc, 6 s of make test's CPU for the four lessons.)
readme_build() {
    local dir="$1" line="$2" keydir="${3:-$1}" key cache new f
    cache="$(build_cache_root)"
    if [ -z "$cache" ]; then
        run bash -c "cd '$dir' && $line"
        return
    fi
    key="readme-$(build_cache_key "$line" "$(cd "$keydir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)")"
    if [ -f "$cache/$key/.made" ]; then
        (cd "$cache/$key" && tar cf - --exclude=./.made .) | (cd "$dir" && tar xf -) || fail "could not copy $cache/$key into $dir"
        status=0
        output="(the files this line made from these inputs, from $cache/$key: $(tr '\n' ' ' <"$cache/$key/.made"))"
        lines=("$output")
        return
    fi
    (cd "$dir" && find . -type f | LC_ALL=C sort) >"$BATS_TEST_TMPDIR/readme-build.before"
    run bash -c "cd '$dir' && $line"
    [ "$status" -eq 0 ] || return 0
    new="$(cd "$dir" && find . -type f | LC_ALL=C sort | LC_ALL=C comm -13 "$BATS_TEST_TMPDIR/readme-build.before" -)"
    [ -n "$new" ] || return 0
    f="$BATS_TEST_TMPDIR/readme-build.made"
    mkdir -p "$f"
    (cd "$dir" && printf '%s\n' "$new" | tar cf - -T -) | (cd "$f" && tar xf -) || return 0
    printf '%s\n' "$new" >"$f/.made"
    build_cache_keep "$cache/$key" "$f"/.
    return 0
}

# doctor_cache_seed DIR / doctor_cache_keep DIR: a test file's DOCTOR_CACHE (tools/doctor's probe
# and its one-kernel PTX files) filled from the build cache at its start and kept there at its
# end, keyed by the doctor, its probe's sources, common/'s, the toolkit's headers and the
# compilers (doctor.bats and t4.bats each built the probe and their PTX files: 2 s of CPU).
doctor_cache_key() {
    local cuda
    cuda="$(cuda_root)"
    echo "doctor-$(build_cache_key "$ROOT/tools/doctor" "$ROOT/tools/doctor_probe.c" "$ROOT"/common/*.[ch] \
        "$cuda/include/cuda.h" "$cuda/include/cuda_runtime_api.h")"
}
doctor_cache_seed() {
    local cache
    mkdir -p "$1"
    cache="$(build_cache_root)"
    [ -n "$cache" ] || return 0
    DOCTOR_CACHE_KEY="$(doctor_cache_key)"
    export DOCTOR_CACHE_KEY
    [ ! -d "$cache/$DOCTOR_CACHE_KEY" ] || cp -r "$cache/$DOCTOR_CACHE_KEY"/. "$1"/ || true
}
doctor_cache_keep() {
    local cache
    cache="$(build_cache_root)"
    [ -n "$cache" ] && [ -n "${DOCTOR_CACHE_KEY:-}" ] && [ -x "$1/probe" ] || return 0
    build_cache_keep "$cache/$DOCTOR_CACHE_KEY" "$1"/.
}
