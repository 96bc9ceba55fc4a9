#!/usr/bin/env bats
# The build itself: warnings, each lesson alone, make clean, the variables, the outer make's
# flags. Runs anywhere (nvcc is needed, a GPU is not), in a copy of the tree so the real build
# is left alone, in a folder whose path holds a space (as a checkout in "~/My courses" would). The copy's lesson programs are built ONCE, from clean, for one architecture
# (BUILD_TEST_ARCH, default the first this nvcc supports), each lesson with its own make -C,
# several at a time; the tests reuse that build. The exercises and solutions are checked in the
# real tree, which `make test` has just built (-Werror: a warning fails that build) for every
# architecture of its ARCH: building them a second time here was half of this file's CPU time.

load test_helper

setup_file() {
    export COPY="$BATS_FILE_TMPDIR/a checkout/tree" LOGS="$BATS_FILE_TMPDIR/logs"
    # the real tree's ARCH (from make test, or unset: its default), for the make run there
    export TREE_ARCH="${ARCH-}" TREE_ARCH_SET="${ARCH+yes}"
    mkdir -p "$LOGS"
    copy_tree "$ROOT" "$COPY" >"$LOGS/copy.log" 2>&1 || echo "copying $ROOT failed" >>"$LOGS/copy.log"
    # One architecture for every build of this file (exported: make reads ARCH from here).
    local first
    first="$(nvcc --list-gpu-code 2>/dev/null | sed -n 's/^sm_//p' | grep -vx 90 | sort -n | head -1)"
    export ARCH="${BUILD_TEST_ARCH:-${first:-75}}"
    local lessons jobs
    lessons="$(list_lessons "$COPY" 2>>"$LOGS/copy.log")" || return 0   # setup() fails each test
    jobs="$(nproc 2>/dev/null || echo 2)"
    # Each lesson's program and demo alone (make -C, -j2 inside it), $jobs lessons at a time: a
    # clean build. At a lower priority: make test runs other files beside this one, whose tests
    # run one after another; this build fills the CPU they leave.
    printf '%s\n' $lessons | xargs -P "$jobs" -I{} sh -c \
        'nice -n 5 make -C "$COPY/{}" -j2 program demo >"$LOGS/{}.log" 2>&1; echo $? >"$LOGS/{}.status"'
}

# make in the real tree, with the ARCH it was built for (not this file's own).
make_in_tree() {
    if [ "$TREE_ARCH_SET" = yes ]; then
        make ARCH="$TREE_ARCH" "$@"
    else
        env -u ARCH make "$@"
    fi
}

# Runs "$@" as if started from a shell, not from this bats run: without its BATS_* variables
# and without bats' libexec folder on PATH (where `bats` is its internal script).
outside_bats() {
    local path="$PATH"
    [ -z "${BATS_LIBEXEC:-}" ] || path="$(tr : '\n' <<<"$PATH" | grep -vxF "$BATS_LIBEXEC" | paste -sd: -)"
    env $(env | sed -n 's/^\(BATS_[A-Z_]*\)=.*/-u \1/p' | grep -vx -- '-u BATS_LIB_PATH') PATH="$path" "$@"
}

setup() {
    [ ! -s "$LOGS/copy.log" ] || fail "the copy of the tree failed: $(cat "$LOGS/copy.log")"
    LESSONS="$(list_lessons "$COPY")" || fail "no lesson found in the copy of $ROOT"
}

@test "a clean build of every lesson's program and demo (make program demo) succeeds" {
    for l in $LESSONS; do
        assert_equal "$l: exit $(cat "$LOGS/$l.status") $(tail -n 3 "$LOGS/$l.log")" "$l: exit 0 $(tail -n 3 "$LOGS/$l.log")"
        [ -x "$COPY/$l/build/${l#*_}" ] || fail "$l/build/${l#*_} was not built"
        [ -x "$COPY/$l/build/demo" ] || fail "$l/build/demo was not built"
    done
}

@test "a clean build prints no warning" {
    # nvcc's own "-Werror all-warnings" on the command lines is not a warning
    for l in $LESSONS; do
        run grep -i -E '\bwarning\b' "$LOGS/$l.log"
        assert_failure
    done
}

@test "every exercise and its solution build as given, without a warning (in the real tree)" {
    # make test built the real tree (every exercise, -Werror) before this file ran: make there
    # succeeds and, where it had something left to build, warns of nothing; every exercise and
    # solution folder has its program. An exercise a student has changed since the last commit
    # (git says so) is left out: half done, it may not build, and make check is where it shows.
    local n=0 l e kind changed
    changed="$(git -C "$ROOT" status --porcelain -- '[0-9][0-9]_*/exercises/*' 2>/dev/null \
               | sed -E 's,^.. (.* -> )?,,; s,^([0-9][0-9]_[^/]*/exercises/[^/]*)/.*,\1,' | sort -u)"
    for l in $(list_lessons "$ROOT"); do
        if grep -q "^$l/" <<<"$changed"; then
            run make_in_tree -C "$ROOT/$l" all EXERCISES_MAY_FAIL=1
        else
            run make_in_tree -C "$ROOT/$l" all
        fi
        assert_success
        run grep -i -E '\bwarning\b' <<<"$output"
        assert_failure
        for e in "$ROOT/$l"/exercises/*/ "$ROOT/$l"/solutions/*/; do
            [ -d "$e" ] || continue
            kind="$(basename "$(dirname "$e")")"
            ! grep -qx "$l/$kind/$(basename "$e")" <<<"$changed" || continue
            [ -x "$ROOT/$l/build/$kind/$(basename "$e")" ] || fail "$l: $kind/$(basename "$e") not built"
            n=$((n + 1))
        done
    done
    [ "$n" -gt 0 ] || fail "no exercise found in any lesson"
}

@test "each lesson builds alone with make -C" {
    # setup_file built every lesson from clean with its own make -C, without the top level
    for l in $LESSONS; do
        run cat "$LOGS/$l.log"
        assert_output --partial "Entering directory '$COPY/$l'"
        refute_output --partial "Entering directory '$COPY'"
        assert_equal "$l: exit $(cat "$LOGS/$l.status")" "$l: exit 0"
        [ -x "$COPY/$l/build/${l#*_}" ] || fail "$l did not build alone"
    done
}

@test "make is safe with -j and a second make has nothing to do" {
    run make -C "$COPY" -j4 programs
    assert_success
    refute_output --regexp '(nvcc|cc) .* -c '
    run make -C "$COPY/01_hello_runtime" program demo
    assert_success
    refute_output --regexp '(nvcc|cc) .* -c '
    refute_output --regexp '(nvcc|cc) .* -o build/demo'
    # the exercises too: in the real tree, built by make test; plain make built each demo there
    run make_in_tree -C "$ROOT" -j4
    assert_success
    refute_output --regexp '(nvcc|cc) .* -c '
    refute_output --regexp 'nvcc .* -o build/'
    for l in $(list_lessons "$ROOT"); do
        [ ! -f "$ROOT/$l/demo.c" ] || [ -x "$ROOT/$l/build/demo" ] || fail "plain make did not build $l/build/demo"
    done
}

@test "changing a header rebuilds what includes it" {
    local h="$COPY/common/check.h" old
    old="$(stat -c %Y "$h")"
    touch "$h"
    run make -C "$COPY/01_hello_runtime" -j2 build/obj/proof/main.o build/obj/common/check.o
    # back to its old time: the objects not rebuilt here are newer than it again, so nothing
    # else rebuilds later
    touch -d "@$old" "$h"
    assert_success
    assert_output --regexp 'cc .* -c proof/main\.c'
    assert_output --regexp 'cc .* -c .*common/check\.c'
}

@test "ARCH=90 builds for sm_90 only, with PTX; dbg=1 builds with -G and no warning" {
    [ "$ARCH" != 90 ] || fail "this file's own ARCH must differ from 90 for this test to mean anything"
    local b="$BATS_FILE_TMPDIR/arch90"   # a folder of its own: the copy's build stays as it is
    # the lesson's device code and one C file (all of it, linked, took four times as long)
    local cu=() f
    for f in "$COPY"/01_hello_runtime/*.cu; do cu+=("$b/obj/$(basename "$f").o"); done
    [ "${#cu[@]}" -gt 0 ] || fail "01_hello_runtime has no .cu file"
    # (ARCH_ALSO unset: `make test` exports the 75 it computed beside its default ARCH, which
    # a make given ARCH=90 by hand then took as the user's own: 75 90, and this test failed
    # under make test ALL_TESTS=1, passing under bats alone)
    run env -u ARCH_ALSO make -C "$COPY/01_hello_runtime" ARCH=90 dbg=1 BUILD="$b" "${cu[@]}" "$b/obj/proof/main.o"
    assert_success
    assert_output --regexp 'nvcc .* -G .*-c '
    assert_output --regexp 'cc .*-O0 -g .*-c proof/main\.c'
    run grep -iE '\bwarning\b' <<<"$output"   # nvcc warned when -O2 and -O0 met
    assert_failure
    run cat "$b/flags"
    assert_output --partial "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
    assert_output --partial " -G"
    refute_output --partial "compute_80"
    refute_output --partial "compute_$ARCH"
    refute_output --partial "-O2"
    local cuobjdump
    cuobjdump="$(command -v cuobjdump || echo "$(dirname "$(command -v nvcc)")/cuobjdump")"
    if [ -x "$cuobjdump" ]; then
        run "$cuobjdump" --list-elf "${cu[0]}"
        assert_output --partial "sm_90"
        refute_output --partial "sm_80"
    fi
}

@test "the default build carries sm_75 machine code (Colab's T4) beside the GPU's; ARCH=compute_75 is PTX only" {
    local b="$BATS_TEST_TMPDIR/bin" o="$BATS_TEST_TMPDIR/obj" cu f l
    mkdir -p "$b"
    # an nvidia-smi that sees an H100 (sm_90)
    printf '#!/bin/sh\nprintf "9.0\\n"\n' >"$b/nvidia-smi"
    chmod +x "$b/nvidia-smi"
    cu="$(basename "$(ls "$COPY"/01_hello_runtime/*.cu | head -n 1)")"
    run env -u ARCH -u ARCH_ALSO PATH="$b:$PATH" make -C "$COPY/01_hello_runtime" BUILD="$o/default" "$o/default/obj/$cu.o"
    assert_success
    assert_output --partial "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
    run "$ROOT/tests/common/gpu-images" "$o/default/obj/$cu.o"
    assert_success
    assert_output "$(printf 'ptx compute_90\nsass sm_75\nsass sm_90')"
    # ARCH_ALSO= leaves it out; ARCH given by hand is what is built
    run env -u ARCH PATH="$b:$PATH" make -n -C "$COPY/01_hello_runtime" ARCH_ALSO= BUILD="$o/none" program
    assert_success
    refute_output --partial "code=sm_75"
    # PTX only: no machine code at all, the driver compiles it at load time
    run make -C "$COPY/01_hello_runtime" ARCH=compute_75 BUILD="$o/ptx" "$o/ptx/obj/$cu.o"
    assert_success
    refute_output --partial "code=sm_"
    run "$ROOT/tests/common/gpu-images" "$o/ptx/obj/$cu.o"
    assert_success
    assert_output "ptx compute_75"
    # every lesson's program built in this copy (ARCH=$ARCH, 75 unless BUILD_TEST_ARCH says
    # otherwise), and its demo where the demo has GPU code, carries that machine code; the real
    # tree's programs, when make test built them with the default ARCH, carry sm_75
    for l in $LESSONS; do
        run "$ROOT/tests/common/gpu-images" "$COPY/$l/build/${l#*_}"
        assert_success
        assert_line "sass sm_$ARCH"
        run "$ROOT/tests/common/gpu-images" "$COPY/$l/build/demo"
        assert_success
        [ -z "$output" ] || assert_line "sass sm_$ARCH"
        f="$ROOT/$l/build/${l#*_}"
        if [ "$TREE_ARCH_SET" != yes ] && [ -e "$f" ]; then
            run "$ROOT/tests/common/gpu-images" "$f"
            assert_line "sass sm_75"
        fi
    done
}

@test "ARCH by default: the visible GPU's, else those of the list this nvcc can build" {
    local supported want
    supported="$(nvcc --list-gpu-code | sed -n 's/^sm_//p' | tr '\n' ' ')"
    want=""
    for a in 75 80 86 89 90 100 120; do
        case " $supported " in *" $a "*) want="$want $a" ;; esac
    done
    # an nvidia-smi that sees no GPU (as on a login node): the list, whatever this machine has
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    ln -s "$(command -v nvcc)" "$BATS_TEST_TMPDIR/bin/nvcc"
    printf '#!/bin/sh\necho "No devices were found" >&2\nexit 6\n' >"$BATS_TEST_TMPDIR/bin/nvidia-smi"
    chmod +x "$BATS_TEST_TMPDIR/bin/nvidia-smi"
    run env -u ARCH PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" make -s -C "$COPY" help
    assert_success
    assert_line --partial "  ARCH=${want# }   ("
    # an nvcc that lists only sm_75..sm_90 (CUDA 12.0-12.7): no 100, no 120
    printf '#!/bin/sh\nprintf "sm_50\\nsm_75\\nsm_80\\nsm_86\\nsm_87\\nsm_89\\nsm_90\\n"\n' >"$BATS_TEST_TMPDIR/bin/old-nvcc"
    chmod +x "$BATS_TEST_TMPDIR/bin/old-nvcc"
    run env -u ARCH PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" make -s -C "$COPY" help NVCC="$BATS_TEST_TMPDIR/bin/old-nvcc"
    assert_line --partial "  ARCH=75 80 86 89 90   ("
    # one that sees an sm_90 card and an sm_86 card: those two
    printf '#!/bin/sh\nprintf "9.0\\n8.6\\n9.0\\n"\n' >"$BATS_TEST_TMPDIR/bin/nvidia-smi"
    run env -u ARCH PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" make -s -C "$COPY" help
    assert_line --partial "  ARCH=86 90   ("
}

@test "ARCH: a GPU this nvcc cannot build for stops the build saying what to install; a second GPU it can build for is built for" {
    local b="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$b"
    # stand-ins: nvcc 13.0 (sm_75 to sm_121, in nvcc's own order) and 12.4 (sm_50 to sm_90)
    printf '#!/bin/sh\ncase "$1" in --list-gpu-code) printf "sm_75\\nsm_80\\nsm_86\\nsm_87\\nsm_88\\nsm_89\\nsm_90\\nsm_100\\nsm_110\\nsm_103\\nsm_120\\nsm_121\\n" ;;\n--version) echo "Cuda compilation tools, release 13.0, V13.0.88" ;; esac\n' >"$b/nvcc13"
    printf '#!/bin/sh\ncase "$1" in --list-gpu-code) printf "sm_50\\nsm_52\\nsm_60\\nsm_70\\nsm_75\\nsm_80\\nsm_86\\nsm_89\\nsm_90\\n" ;;\n--version) echo "Cuda compilation tools, release 12.4, V12.4.131" ;; esac\n' >"$b/nvcc12"
    chmod +x "$b/nvcc13" "$b/nvcc12"
    gpus() { printf '#!/bin/sh\nprintf "%s"\n' "$1" >"$b/nvidia-smi"; chmod +x "$b/nvidia-smi"; }
    mk() { env -u ARCH PATH="$b:/usr/bin:/bin" make -s -C "$COPY/01_hello_runtime" "$@"; }
    # a V100 (sm_70) with CUDA 13: no build, one message with the versions and what to install
    gpus '7.0\n'
    run mk -n program NVCC="$b/nvcc13"
    assert_failure
    assert_output --partial "The GPU here is sm_70 (nvidia-smi), and this nvcc ($b/nvcc13, CUDA 13.0)"
    assert_output --partial "cannot build for it: it builds for sm_75 to sm_121"
    assert_output --partial "needs a CUDA 12.x"
    assert_output --partial "make CUDA_PATH="
    refute_output --partial "gencode"
    # make help and make clean still work there; ARCH given by hand is taken as it is
    run mk help NVCC="$b/nvcc13"
    assert_success
    run mk -n clean NVCC="$b/nvcc13"
    assert_success
    run mk -n program NVCC="$b/nvcc13" ARCH=75
    assert_success
    assert_output --partial "arch=compute_75,code=sm_75"
    # an RTX 50 (sm_120) with CUDA 12.4: newer than this nvcc, install what the driver supports
    gpus '12.0\n'
    run mk -n program NVCC="$b/nvcc12"
    assert_failure
    assert_output --partial "The GPU here is sm_120 (nvidia-smi), and this nvcc ($b/nvcc12, CUDA 12.4)"
    assert_output --partial "it builds for sm_50 to sm_90"
    assert_output --partial "newer than this nvcc"
    assert_output --partial "CUDA 12.8 or newer"
    # the same GPU with CUDA 13: built for, no message
    run mk -n program NVCC="$b/nvcc13"
    assert_success
    assert_output --partial "arch=compute_120,code=sm_120"
    refute_output --partial "cannot build"
    # a V100 beside an H100 with CUDA 13: built for sm_90 only, and a note says why
    gpus '7.0\n9.0\n'
    run mk -n program NVCC="$b/nvcc13"
    assert_success
    assert_output --partial "note: this nvcc (CUDA 13.0) cannot build for the visible sm_70 GPU: building for sm_90 only"
    assert_output --partial "arch=compute_90,code=sm_90"
    refute_output --partial "compute_70"
}

@test "HOST_SANITIZE=1 builds the host code with ASan and UBSan into build-hostsan; the link takes CFLAGS and LDFLAGS" {
    local b="$COPY/01_hello_runtime/build-hostsan"
    run make -C "$COPY/01_hello_runtime" -j2 HOST_SANITIZE=1 LDFLAGS="-Wl,-Map,$BATS_FILE_TMPDIR/link.map" \
        CFLAGS="-O1 -DBUILD_TEST_CFLAGS" build-hostsan/hello_runtime
    assert_success
    assert_output --regexp 'cc .*-fsanitize=address -fsanitize=undefined .* -c proof/main\.c'
    assert_output --regexp 'nvcc .*-Xcompiler -DBUILD_TEST_CFLAGS .*-Xcompiler -fsanitize=address .*-o build-hostsan/hello_runtime'
    [ -s "$BATS_FILE_TMPDIR/link.map" ] || fail "LDFLAGS did not reach the link (no map file)"
    run grep -c libasan "$BATS_FILE_TMPDIR/link.map"
    assert_success
    run "$b/hello_runtime" --help
    assert_success
    assert_output --partial "usage:"
    [ -x "$COPY/01_hello_runtime/build/hello_runtime" ] || fail "the normal build/ was touched"
}

@test "no nvcc: one clear message saying what to install or set, once, even under make run" {
    run make -C "$COPY" NVCC=/nonexistent/nvcc
    assert_failure
    assert_output --partial "nvcc not found (looked for '/nonexistent/nvcc')"
    assert_output --partial "CUDA_PATH="
    run make -C "$COPY" CUDA_PATH=/nowhere run
    assert_failure
    assert_equal "$(grep -c "nvcc not found (looked for '/nowhere/bin/nvcc')" <<<"$output")" 1
    refute_output --partial "..  Stop."
    refute_output --partial "Entering directory '$COPY/0"   # stopped before any lesson's make
}

@test "ARCH=52 or ARCH=foo: stops before anything is built, naming what this nvcc builds" {
    local flags="$COPY/01_hello_runtime/build/flags" before a
    before="$(cat "$flags")"
    for a in 52 foo "90 52"; do
        run make -C "$COPY/01_hello_runtime" ARCH="$a" program
        assert_failure
        assert_output --partial "ARCH=$a: this nvcc ($(command -v nvcc)"
        assert_output --partial "cannot build for ${a#90 }; it builds for "
        assert_output --partial "(nvcc --list-gpu-code). Give ARCH some of those (make ARCH=90"
        refute_output --regexp '(cc|nvcc) .* -c '
        assert_equal "$(grep -c '' <<<"$output")" 3   # make's two directory lines and this
    done
    run make -C "$COPY" ARCH= run
    assert_failure
    assert_output --partial "ARCH is empty: give the architectures to build for"
    assert_equal "$(cat "$flags")" "$before"   # nothing was rebuilt for it
    # make help and make clean -n still work, make doctor explains it
    run make -s -C "$COPY" ARCH=52 help
    assert_success
}

@test "make help lists the targets and the variables" {
    run make -C "$COPY" help
    assert_success
    for word in "make run" "make test" "make clean" sanitize check chart ptx cubin sass \
                CUDA_PATH NVCC ARCH CFLAGS LDFLAGS NVCCFLAGS dbg=1 HOST_SANITIZE=1 TESTS=; do
        assert_output --partial "$word"
    done
    # every target of the top Makefile, and of each lesson's own, is in a help text
    for t in $(sed -n 's/^\.PHONY: *//p' "$COPY/Makefile" | tr ' ' '\n' | grep -vx -e all -e '\$.*'); do
        assert_output --partial "make $t"
    done
    for l in $LESSONS; do
        run make -s -C "$COPY/$l" help
        assert_success
        for t in all run check sanitize clean $(sed -n 's/^\.PHONY: *//p' "$COPY/$l/Makefile"); do
            [ "$t" = all ] && continue
            assert_output --partial "make $t"
        done
    done
}

@test "make test BATS=/nonexistent/bats: names the path it checked, no apt-get when bats is elsewhere" {
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    # an apt-get that only records that it was called
    printf '#!/bin/sh\necho "$@" >>"%s/apt-get.called"\nexit 1\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/apt-get"
    chmod +x "$BATS_TEST_TMPDIR/bin/apt-get"
    PATH="$BATS_TEST_TMPDIR/bin:$PATH" run sh "$ROOT/tests/ensure-bats" /nonexistent/bats
    assert_failure
    assert_output --partial "not found at '/nonexistent/bats'"
    [ ! -e "$BATS_TEST_TMPDIR/apt-get.called" ] || fail "apt-get ran: $(cat "$BATS_TEST_TMPDIR/apt-get.called")"
    if command -v bats >/dev/null; then
        assert_output --partial "there is one at $(command -v bats)"
    fi
    BATS_LIB_PATH=/nonexistent/lib PATH="$BATS_TEST_TMPDIR/bin:$PATH" run sh "$ROOT/tests/ensure-bats" bats
    assert_failure
    assert_output --partial "not found in BATS_LIB_PATH=/nonexistent/lib"
    [ ! -e "$BATS_TEST_TMPDIR/apt-get.called" ] || fail "apt-get ran for a BATS_LIB_PATH of the user's"
    run sh "$ROOT/tests/ensure-bats" bats   # what make test uses here: found, silent
    assert_success
    assert_output ""
}

@test "make sanitize without compute-sanitizer says so once, naming where it looked" {
    run make -C "$COPY/01_hello_runtime" sanitize SANITIZER=/nonexistent/compute-sanitizer
    assert_failure
    assert_output --partial "compute-sanitizer not found (looked for '/nonexistent/compute-sanitizer'"
    refute_output --partial "exit 127"
}

@test "the outer make's flags (MAKEFLAGS=-s make -j2 test) do not reach the builds the tests run" {
    # (@test at the start of a line here would be taken by bats for a test of this file; the
    # file outside the copy, whose path make test's TESTS cannot take, loads the copy's helper)
    mkdir -p "$BATS_TEST_TMPDIR/zz"
    sed -e 's/^AT_TEST/@test/' -e "s|@HELPER@|$COPY/tests/test_helper|" >"$BATS_TEST_TMPDIR/zz/zz_flags.bats" <<'EOF'
load '@HELPER@'
AT_TEST "a nested build echoes its commands and warns of nothing" {
    touch "$ROOT/01_hello_runtime/proof/main.c"
    run make -C "$ROOT/01_hello_runtime" build/obj/proof/main.o
    assert_success
    assert_output --regexp 'cc .* -c proof/main\.c'
    refute_output --regexp '[Ww]arning|jobserver'
}
EOF
    # -j2 on the command line (a jobserver), -s and MAKEFLAGS from the environment: one run.
    # make test in the real tree (its all: built, nothing to do; the copy's has no exercises
    # built), running the copy's test file: the nested build it starts is in the copy.
    local arch=(-u ARCH)
    [ "$TREE_ARCH_SET" != yes ] || arch=(ARCH="$TREE_ARCH")
    run outside_bats env "${arch[@]}" MAKEFLAGS=-s make -C "$ROOT" -j2 test TESTS="$BATS_TEST_TMPDIR/zz/zz_flags.bats"
    assert_success
    assert_output --partial "ok 1 a nested build echoes"
}

@test "make run without a GPU: every lesson is reported as could-not-run (exit 77), make exits 0" {
    # CUDA_VISIBLE_DEVICES= hides every GPU, so this holds on any machine. In the real tree
    # (make run builds all first: built there by make test, not in the copy)
    CUDA_VISIBLE_DEVICES= run make_in_tree -C "$ROOT" run
    assert_success
    assert_output --partial "==================== summary ===================="
    for l in $LESSONS; do
        assert_output --regexp "$l +could not run here \\(no usable GPU or driver\\) \\(exit 77\\)"
    done
}

# make_tiny_tree T: a small tree of the suite's Makefiles, grading/ and tools/, with one lesson
# of its own, 99_tiny (plain C: it builds in a second): its program prints RESULT: PASS (any
# argument: a usage line, exit 2), its exercise "one" is half done (an unused variable: it does
# not build), the solution builds.
make_tiny_tree() {
    local T="$1" f
    mkdir -p "$T/tests" "$T/grading/judge" "$T/99_tiny/exercises/one" "$T/99_tiny/solutions/one"
    cp -r "$COPY/Makefile" "$COPY/common" "$COPY/grading" "$COPY/tools" "$T/"
    for f in run test_helper.bash gpu.bash ensure-bats; do cp "$COPY/tests/$f" "$T/tests/"; done
    echo 'include ../common/lesson.mk' >"$T/99_tiny/Makefile"
    printf '#include <stdio.h>\nint main(int argc, char **argv) {\n if (argc > 1) { fprintf(stderr, "usage: tiny (no option %%s)\\n", argv[1]); return 2; }\n puts("RESULT: PASS"); return 0; }\n' >"$T/99_tiny/main.c"
    printf 'int main(void) { return 0; }\n' >"$T/99_tiny/solutions/one/one.c"
    printf 'int main(void) { int half_done; return 0; }\n' >"$T/99_tiny/exercises/one/one.c"
    echo 'one 1' >"$T/99_tiny/exercises/points"
    printf '%s\n' 'load ../../tests/test_helper' '@test "one: runs" { require_gpu; "$EXERCISE_BIN/one"; }' >"$T/grading/judge/99_tiny.bats"
    printf '%s\n' 'load test_helper' '@test "the suite runs" { [ -x "$ROOT/99_tiny/build/tiny" ]; }' >"$T/tests/zz_tiny.bats"
}

# read_only DIR CMD...: `run` CMD with DIR mounted read-only (a private mount namespace: even
# root cannot write there, as a student cannot write a shared lab copy). Skips where a mount
# namespace is not allowed.
read_only() {
    local dir="$1" why
    shift
    why="$(unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1"' sh "$dir" 2>&1)" \
        || skip "cannot mount a folder read-only here (${why:-unshare -m failed}): needs root with CAP_SYS_ADMIN"
    run unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"' sh "$dir" "$@"
}

@test "a student's half-done exercise, in a checkout whose path holds a space: make run and make test go on, make check shows the compiler's message; make in the exercise's folder points to the lesson's" {
    local T="$BATS_TEST_TMPDIR/my course/tree"
    make_tiny_tree "$T"
    # plain make: the rest is built; one line names the exercise, without make's "up to date"
    run make -C "$T"
    assert_success
    assert_line "99_tiny: the exercise one does not build yet, the rest of the lesson is built (make -C 99_tiny check shows the compiler's message)"
    run make -C "$T"
    assert_success
    refute_output --partial "is up to date"
    refute_output --partial "runs all the same"
    # make run: the lesson and the solution build and the lesson runs; one line names the
    # exercise, and the summary names it again
    run make -C "$T" run
    assert_success
    assert_line "99_tiny: the exercise one does not build yet, and the lesson runs all the same (make -C 99_tiny check shows the compiler's message)"
    assert_line "RESULT: PASS"
    assert_output --regexp "99_tiny +ran: all checks passed \(exit 0\)"
    assert_output --regexp " +the exercise\(s\) one do not build yet \(make -C 99_tiny check shows why\)"
    refute_output --partial "is up to date"
    refute_output --partial "half_done"
    [ -x "$T/99_tiny/build/solutions/one" ] || fail "the solution was not built"
    # make test: the same build, then the tests
    run make -C "$T" test TESTS=tests/zz_tiny.bats
    assert_success
    assert_line --regexp '^ok 1 the suite runs'
    assert_line "1 passed, 0 failed, 0 skipped"
    # make check: the compiler's message (without a GPU it grades nothing, exit 77 through make)
    CUDA_VISIBLE_DEVICES= run make -C "$T/99_tiny" check
    assert_failure
    assert_output --regexp "one\.c:1:22: error: unused variable .half_done."
    assert_output --partial "make check: ../grading/grade 99_tiny exited 77"
    # make in the exercise's folder (given a Makefile of the lesson's line): where to go instead
    echo 'include ../../../common/lesson.mk' >"$T/99_tiny/exercises/one/Makefile"
    run make -C "$T/99_tiny/exercises/one" check
    assert_failure 2
    assert_output --partial "make check in an exercise's folder (99_tiny/exercises/one): make works in the lesson's folder, cd ../.. && make check"
    refute_output --partial "No rule to make target"
    # make doctor and make clean there
    CUDA_VISIBLE_DEVICES= run make -C "$T" doctor
    assert_output --partial "make doctor: what this machine will show"
    assert_output --partial "make doctor: tools/doctor exited 77"
    run make -C "$T" clean
    assert_success
    [ ! -e "$T/99_tiny/build" ] || fail "make clean left 99_tiny/build"
}

@test "first steps at the top: make check grades (as make grade), make -f from another folder, ARGS one lesson refuses, make help's doctor codes" {
    local T="$BATS_TEST_TMPDIR/tiny"
    make_tiny_tree "$T"
    # make check at the top: make grade's grading (without a GPU it says it cannot grade here)
    CUDA_VISIBLE_DEVICES= run make -C "$T" check
    refute_output --partial "No rule to make target"
    assert_output --partial "make grade: grading/grade exited 77"
    # from another folder, with -f
    run sh -c 'cd / && make -f "$1/Makefile" run' sh "$T"
    assert_success
    assert_line "make: the suite's Makefile works in its own folder: make -C $T run"
    assert_output --regexp "99_tiny +ran: all checks passed \(exit 0\)"
    refute_output --partial "***"
    # an option the lesson does not have: the summary says so, not only "FAILED"
    run make -C "$T" run ARGS=--max=1G
    assert_failure
    assert_line "usage: tiny (no option --max=1G)"
    assert_output --regexp "99_tiny +did not take ARGS=--max=1G \(its usage above: an option of another lesson\? make -C 99_tiny run ARGS=\.\.\. runs one lesson\) \(exit 2\)"
    # make help: the doctor's codes, and make's 2 around them
    run make -C "$T" help
    assert_output --partial "tools/doctor exits 0 ready, 1 something to fix, 77 no GPU; make doctor exits 0, or make's 2 with a line naming that code"
    assert_output --partial "make check        the same as make grade"
}

@test "a tree the student cannot write (mounted read-only): built, make run runs; not built, one line saying what to do; BUILD=/abs/dir builds and runs there" {
    # built (the copy's lessons, built by setup_file): nothing is built again, every lesson runs
    CUDA_VISIBLE_DEVICES= read_only "$COPY" make -C "$COPY" run
    assert_success
    for l in $LESSONS; do
        assert_output --regexp "$l +could not run here \(no usable GPU or driver\) \(exit 77\)"
    done
    refute_output --partial "does not build yet"
    refute_output --partial "Read-only file system"
    refute_output --partial "Permission denied"
    CUDA_VISIBLE_DEVICES= read_only "$COPY" make -s -C "$COPY"
    assert_success
    assert_output "make: this tree is read-only for you, and every lesson is built: nothing is built again (make run runs them)"
    # not built: one line, what to do
    local T="$BATS_TEST_TMPDIR/shared copy" B="$BATS_TEST_TMPDIR/mine"
    make_tiny_tree "$T"
    read_only "$T" make -C "$T" run
    assert_failure 2
    assert_line "make: this tree is read-only for you (the lessons' build folders cannot be written: a shared copy?) and not built: build into a folder of yours, make run BUILD=\$HOME/cuda-lessons-build (an absolute path), or copy the tree (cp -r '$T' ~/cuda-lessons) and make there"
    refute_output --partial "Read-only file system"
    read_only "$T" make -C "$T/99_tiny" run
    assert_failure 2
    assert_output --partial "99_tiny is read-only for you (a shared copy?) and not built: build into a folder of yours, make run BUILD=\$HOME/cuda-lessons-build/99_tiny"
    # BUILD=/abs/dir: built there, each lesson in a folder of its own, and run from there
    read_only "$T" make -C "$T" run BUILD="$B"
    assert_success
    assert_line "RESULT: PASS"
    assert_output --regexp "99_tiny +ran: all checks passed \(exit 0\)"
    [ -x "$B/99_tiny/tiny" ] || fail "not built into $B/99_tiny"
    [ ! -e "$T/99_tiny/build" ] || fail "the read-only tree got a build folder"
    run make -C "$T" clean BUILD="$B"
    assert_success
    [ ! -e "$B/99_tiny" ] || fail "make clean BUILD=$B left $B/99_tiny"
}

@test "the copy works without git (a release tarball), and no lesson found is an error" {
    local plain="$BATS_TEST_TMPDIR/plain" again="$BATS_TEST_TMPDIR/again"
    copy_tree "$ROOT" "$plain"
    rm -rf "$plain/.git"
    [ ! -e "$plain/.git" ] || fail ".git still there"
    # a tree with build output in it, as a user's would have
    mkdir -p "$plain/01_hello_runtime/build/obj"
    touch "$plain/01_hello_runtime/build/obj/x.o"
    GIT_CEILING_DIRECTORIES="$BATS_TEST_TMPDIR" run copy_tree "$plain" "$again"
    assert_success
    run list_lessons "$again"
    assert_success
    assert_equal "$output" "$(list_lessons "$ROOT")"
    for l in $output; do
        [ -f "$again/$l/Makefile" ] || fail "$l/Makefile missing from the copy"
    done
    [ -f "$again/common/lesson.mk" ] && [ -f "$again/tests/test_helper.bash" ] || fail "common/ or tests/ missing"
    [ ! -e "$again/01_hello_runtime/build" ] || fail "build output was copied"
    # git that refuses to read the checkout (another owner, "dubious ownership"): same fallback
    mkdir -p "$BATS_TEST_TMPDIR/fakebin"
    printf '#!/bin/sh\necho "fatal: detected dubious ownership" >&2\nexit 128\n' >"$BATS_TEST_TMPDIR/fakebin/git"
    chmod +x "$BATS_TEST_TMPDIR/fakebin/git"
    PATH="$BATS_TEST_TMPDIR/fakebin:$PATH" run copy_tree "$ROOT" "$BATS_TEST_TMPDIR/nogit"
    assert_success
    run list_lessons "$BATS_TEST_TMPDIR/nogit"
    assert_success
    assert_equal "$output" "$(list_lessons "$ROOT")"
    # nothing to find: a loud failure, not an empty loop that passes
    mkdir -p "$BATS_TEST_TMPDIR/empty"
    run list_lessons "$BATS_TEST_TMPDIR/empty"
    assert_failure
    assert_output --partial "no lesson"
}

@test "03's make chart: the committed CSV by default, the PNG through a temporary file, one line for a bad CSV" {
    local d="$COPY/03_pinned_memory"
    cp "$d/bandwidth_h100.png" "$BATS_TEST_TMPDIR/before.png"
    printf 'kind,direction,bytes,reps,median_gbps,min_gbps,max_gbps\nnot,a,row\n' >"$BATS_TEST_TMPDIR/bad.csv"
    run make -s -C "$d" chart CSV="$BATS_TEST_TMPDIR/bad.csv" PNG="$d/bandwidth_h100.png"
    assert_failure
    cmp -s "$d/bandwidth_h100.png" "$BATS_TEST_TMPDIR/before.png" || fail "a failed chart changed the PNG"
    [ ! -e "$d/bandwidth_h100.png.tmp" ] || fail "the temporary PNG was left behind"
    run make -s -C "$d" chart CSV=Makefile
    assert_failure
    assert_line "make chart: Makefile is not a sweep CSV written by pinned_memory --csv (no line kind,direction,bytes,reps,median_gbps,min_gbps,max_gbps)"
    refute_output --partial "gnuplot"
    run make -s -C "$d" chart
    if ! command -v gnuplot >/dev/null 2>&1; then
        assert_failure
        assert_output --partial "gnuplot not found: install it"
        return
    fi
    assert_success
    assert_output "wrote bandwidth_h100.png"
    run file "$d/bandwidth_h100.png"
    assert_output --partial "PNG image"
}

@test "the files the READMEs tell users to make are ignored by git, the committed ones are not" {
    local f
    for f in 03_pinned_memory/sweep.csv 03_pinned_memory/sweep.png 04_streams_overlap/timeline.csv \
             04_streams_overlap/timeline.png 01_hello_runtime/build/x 01_hello_runtime/build-hostsan/x; do
        [[ "$f" == */build*/x ]] || grep -qF -- "--csv $(basename "${f%.*}").csv" "$ROOT/${f%%/*}/README.md" \
            || fail "${f%%/*}/README.md no longer makes $(basename "$f"): update this test"
        if git -C "$ROOT" rev-parse 2>/dev/null; then
            git -C "$ROOT" check-ignore -q "$f" || fail "$f is not in .gitignore"
        else
            grep -qxF "$f" "$ROOT/.gitignore" || grep -qxF "$(basename "$(dirname "$f")")/" "$ROOT/.gitignore" \
                || fail "$f is not in .gitignore"
        fi
    done
    for f in 03_pinned_memory/bandwidth_h100.csv 03_pinned_memory/bandwidth_h100.png \
             04_streams_overlap/timeline_h100.csv 04_streams_overlap/timeline_h100.png; do
        [ -f "$ROOT/$f" ] || fail "$f is not there"
        if git -C "$ROOT" rev-parse 2>/dev/null; then
            run git -C "$ROOT" check-ignore -q "$f"
            assert_failure
        fi
    done
}

@test "make clean leaves no build output" {
    run make -C "$COPY" clean
    assert_success
    run find "$COPY" \( \( -name build -type d \) -o -name build-hostsan -o -name '*.o' -o -name '*.d' -o -name '*.ptx' -o -name '*.cubin' -o \( -name demo -type f \) \) -print
    assert_output ""
}

# From tests/05_ptx_module.bats (issue 52: 1.6-2.1 s of make test's 20 s, the longest test there
# once the leak check was made cheap): what another ARCH list makes of lesson 05's Makefile is the
# build machinery's, as are this file's other ARCH= tests; the lesson's own ARCH is still checked
# there ("the lesson's own build: the fatbin it carries holds SASS for every architecture of ARCH").
@test "05_ptx_module built without a GPU for ARCH=\"75 90\", the embedded fatbin holds SASS for both and PTX for 90" {
    local LESSON="$ROOT/05_ptx_module" b="$BATS_TEST_TMPDIR/build" c hex
    run env -u MAKEFLAGS make -s -C "$LESSON" BUILD="$b" ARCH="75 90" "$b/embedded.o"
    assert_success
    [ "$(fatbin_images "$b/kernels.fatbin" | sort | tr '\n' ' ')" = "compute_90 sm_75 sm_90 " ] \
        || fail "fatbin holds: $(fatbin_images "$b/kernels.fatbin" | tr '\n' ' ')"
    if c="$(cuobjdump_path)"; then
        run "$c" --list-elf "$b/kernels.fatbin"
        assert_output --regexp 'sm_75'
        assert_output --regexp 'sm_90'
    fi
    hex="$(nm -S --defined-only "$b/embedded.o" | awk '$4 == "kernels_fatbin" { print $2 }')"
    assert_equal "$((16#$hex))" "$(( $(wc -c <"$b/kernels.fatbin") + 1 ))"
}
