#!/usr/bin/env bats
# The exercise graders' own defences, on CPU: grading/check/check-object (a student's file is refused
# before the link when it could print or write a report of its own: a constructor, an init or
# fini section, a system call of its own, a call outside the exercise's allow list), the
# grader's channel (the seed in, the report out, on a descriptor the student's file cannot
# reach; grading/harness/exercise_harness.h and grading/judge/harness.bash), the corpus's refused
# variants, and shellcheck on the graders' scripts.

load test_helper

setup_file() {
    CUDA_PATH_FOUND="$(make -s --no-print-directory -C "$ROOT/01_hello_runtime" \
        --eval 'g34-cuda-path: ; @echo $(CUDA_PATH)' g34-cuda-path 2>/dev/null | tail -n 1)"
    export CUDA_PATH_FOUND
    # check-object reads the names the libraries define once for this file's some 100 checks,
    # not once each (0.3 s of CPU a check): its CHECK_OBJECT_LIB_TABLE, in this file's folder;
    # the test of definitions that replace a library's checks without it
    export CHECK_OBJECT_LIB_TABLE="$BATS_FILE_TMPDIR/check-object-lib-names"
    # The whole corpus's build (CORPUS_BUILD=1, CI: some 150 variants, most of this file's time)
    # starts now, in the background, beside this file's other tests; the two corpus tests below
    # read it (corpus_build_only waits for it)
    if [ -n "${CI:-}${CORPUS_BUILD:-}" ]; then corpus_build_start; fi
}

setup() {
    command -v nm >/dev/null 2>&1 && command -v objdump >/dev/null 2>&1 \
        || skip "GNU binutils (nm, objdump) are not installed"
    [ -f "$CUDA_PATH_FOUND/include/cuda.h" ] || skip "no CUDA toolkit found (cuda.h)"
    CHECK="$ROOT/grading/check/check-object"
}

# compile LESSON SOURCE OBJECT: the student's file compiled as the lesson compiles it.
compile() {
    # (check-object preprocesses the file as the build does, with the flags lesson.mk exports:
    # here those of this compile, for a file outside the tree)
    export CHECK_OBJECT_CFLAGS="-std=c11 -I$ROOT/common -I$ROOT/grading/harness -I$CUDA_PATH_FOUND/include -I$ROOT/$1 -I$ROOT/$1/proof -I$ROOT/$1/harness"
    "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -O2 -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$CUDA_PATH_FOUND/include" \
        -I"$ROOT/$1/harness" -c "$2" -o "$3"
}

# hostile NAME CODE...: the reference solution of check_launch with CODE added at its end,
# compiled into $BATS_TEST_TMPDIR/NAME.o (the source: NAME.c).
hostile() {
    local name="$1" src="$BATS_TEST_TMPDIR/$1.c"
    shift
    { echo '#include <stdio.h>'; cat "$ROOT/01_hello_runtime/solutions/check_launch/check_launch.c"
      printf '%s\n' "$@"; } >"$src"
    compile 01_hello_runtime "$src" "$BATS_TEST_TMPDIR/$name.o"
}

# refused NAME REASON: check-object refuses NAME.o with one line naming REASON.
refused() {
    run bash "$CHECK" "$ROOT/01_hello_runtime/harness/check_launch/allow" \
        "$BATS_TEST_TMPDIR/$1.o" "$BATS_TEST_TMPDIR/$1.c"
    assert_failure 1
    assert_output --regexp "^$BATS_TEST_TMPDIR/$1\\.c:[0-9]+: error: refused by the grader: .*$2"
    [ "${#lines[@]}" -ge 1 ]
}

@test "check-object refuses a constructor, a destructor and every init/fini section" {
    hostile ctor '__attribute__((constructor)) static void forge(void) { puts("harness: end 1"); }'
    refused ctor "constructor \\(section \\.init_array\\)"
    hostile dtor '__attribute__((destructor)) static void forge(void) { puts("late"); }'
    refused dtor "\\.fini_array"
    hostile preinit 'static void forge(void) { puts("x"); }' \
        '__attribute__((section(".preinit_array"), used)) static void (*p)(void) = forge;'
    refused preinit "\\.preinit_array"
    hostile ctors 'static void forge(void) { puts("x"); }' \
        '__attribute__((section(".ctors"), used)) static void (*p)(void) = forge;'
    refused ctors "\\.ctors"
    hostile init 'static void forge(void) { puts("x"); }' \
        '__attribute__((section(".init"), used)) static void (*p)(void) = forge;'
    refused init "\\(\\.init\\)"
    hostile odd 'static void forge(void) { puts("x"); }' \
        '__attribute__((section(".my_hooks"), used)) static void (*p)(void) = forge;'
    refused odd "section the exercise does not need \\(\\.my_hooks\\)"
}

@test "check-object refuses write, _Exit, dlsym, an inline syscall, and calls renamed to hide them" {
    hostile write '#include <unistd.h>' 'void leak(void) { (void)!write(3, "x", 1); }'
    refused write "'write'"
    hostile quick_exit '#include <stdlib.h>' 'void leak(void) { _Exit(0); }'
    refused quick_exit "'_Exit'"
    hostile exit '#include <stdlib.h>' 'void leak(void) { exit(0); }'
    refused exit "'exit'"
    hostile dlsym '#include <dlfcn.h>' 'void *leak(void) { return dlsym(RTLD_DEFAULT, "write"); }'
    refused dlsym "'dlsym'"
    hostile syscall 'long leak(void) { long r; __asm__ volatile("syscall" : "=a"(r) : "a"(1L), "D"(1L), "S"("x"), "d"(1L) : "rcx", "r11", "memory"); return r; }'
    refused syscall "system call itself \\(the instruction 'syscall'\\)"
    hostile int80 'long leak(void) { long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(4L) : "memory"); return r; }'
    refused int80 "system call itself"
    hostile renamed 'extern long my_out(int, const void *, unsigned long) __asm__("write");' \
        'void leak(void) { my_out(1, "x", 1); }'
    refused renamed "'write'"
    hostile fdopen 'FILE *fdopen(int, const char *);' 'void leak(void) { FILE *f = fdopen(3, "w"); if (f) fputs("x", f); }'
    refused fdopen "'fdopen'"
    hostile stdin_read 'int leak(void) { return getc(stdin); }'
    refused stdin_read "'(getc|_IO_getc|stdin)'"
    hostile harness_var 'extern int harness_launches;' 'void leak(void) { harness_launches = 0; }'
    refused harness_var "'harness_launches'"
}

@test "check-object refuses a definition that would replace the C library's, CUDA's or the harness's" {
    unset CHECK_OBJECT_LIB_TABLE   # (the libraries read by the check itself, as a grading's build does)
    hostile fflush 'int fflush(FILE *f) { (void)f; return 0; }'
    refused fflush "defines 'fflush' outside static"
    hostile cuda 'CUresult cuCtxGetCurrent(CUcontext *c) { *c = 0; return CUDA_SUCCESS; }'
    refused cuda "defines 'cuCtxGetCurrent' outside static"
    hostile wrap 'int __wrap_cudaMalloc(void **p, unsigned long n) { (void)p; (void)n; return 0; }'
    refused wrap "defines '__wrap_cudaMalloc' outside static"
    # a helper of the student's own, outside static, is fine
    hostile helper 'int my_helper(int x);' 'int my_helper(int x) { return x + 1; }'
    run bash "$CHECK" "$ROOT/01_hello_runtime/harness/check_launch/allow" \
        "$BATS_TEST_TMPDIR/helper.o" "$BATS_TEST_TMPDIR/helper.c"
    assert_success
    assert_output ""
}

@test "check-object accepts the 18 reference solutions and the untouched skeletons, with their allow lists" {
    local n=0 l e kind src allow pairs
    for l in $(list_lessons "$ROOT"); do
        for e in $(sed -n 's/^\([a-z_]*\) .*/\1/p' "$ROOT/$l/exercises/points"); do
            allow="$(ls "$ROOT/$l/harness/$e/allow" "$ROOT/$l/harness/$e.allow" 2>/dev/null | head -n 1)"
            [ -n "$allow" ] || fail "$l/$e has no allow list (harness/$e/allow or harness/$e.allow)"
            # (the solution's and the skeleton's files checked by one check-object: each refusal
            # is a line that names its file, and any one makes the status 1)
            pairs=()
            for kind in solutions exercises; do
                for src in $(grep -E '\.(c|cu)$' "$ROOT/$l/exercises/$e/files"); do
                    compile "$l" "$ROOT/$l/$kind/$e/$src" "$BATS_TEST_TMPDIR/$kind.$src.o" || fail "$l/$kind/$e/$src does not compile"
                    pairs+=("$BATS_TEST_TMPDIR/$kind.$src.o" "$l/$kind/$e/$src")
                done
                [ "$kind" = exercises ] || n=$((n + 1))
            done
            run bash "$CHECK" "$allow" "${pairs[@]}"
            [ "$status" -eq 0 ] || fail "$l/$e: a file was refused: $output"
        done
    done
    [ "$n" -eq 18 ] || fail "checked $n reference solutions, 18 expected"
}

# calls_object ALLOW NAME...: an object that calls each NAME (declared here as a function of no
# arguments), compiled into $BATS_TEST_TMPDIR/calls.o (source calls.c), checked against ALLOW.
calls_object() {
    local allow="$1" src="$BATS_TEST_TMPDIR/calls.c" name
    shift
    { for name in "$@"; do echo "extern int $name(void);"; done
      echo 'int use_them(void) {'
      echo '    int r = 0;'
      for name in "$@"; do echo "    r += $name();"; done
      echo '    return r;'
      echo '}'; } >"$src"
    "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -O2 -c "$src" -o "$BATS_TEST_TMPDIR/calls.o" || return 1
    run bash "$CHECK" "$allow" "$BATS_TEST_TMPDIR/calls.o" "$src"
}

@test "the allow lists: every call an exercise names is accepted, every '# refused: NAME' refused for it" {
    local allow names name refused why n=0
    for allow in "$ROOT"/*/harness/*/allow "$ROOT"/*/harness/*.allow; do
        # the exact names (a line ending in * is a family: its NAME_v2 or NAME... forms)
        mapfile -t names < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$allow" | grep -v '^$' | grep -v '\*$')
        if [ "${#names[@]}" -gt 0 ]; then
            calls_object "$allow" "${names[@]}"
            [ "$status" -eq 0 ] || fail "${allow#"$ROOT"/}: its own names refused: $output"
        fi
        # each refused name in an object of its own, the list's objects checked by one
        # check-object: each refusal is a line that names its source (r-NAME.c)
        local pairs=() whys=() said src
        while IFS= read -r refused; do
            name="${refused%%:*}" why="${refused#*: }"
            src="$BATS_TEST_TMPDIR/r-$name.c"
            printf 'extern int %s(void);\nint use_it(void) { return %s(); }\n' "$name" "$name" >"$src"
            "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -O2 -c "$src" -o "${src%.c}.o" || fail "$src does not compile"
            pairs+=("${src%.c}.o" "$src") whys+=("$name: $why")
        done < <(sed -n 's/^# refused: //p' "$allow")
        [ "${#pairs[@]}" -gt 0 ] || continue
        run bash "$CHECK" "$allow" "${pairs[@]}"
        [ "$status" -eq 1 ] || fail "${allow#"$ROOT"/}: its refused names were not refused ($status): $output"
        for refused in "${whys[@]}"; do
            name="${refused%%:*}" why="${refused#*: }"
            said="$(grep -F "$BATS_TEST_TMPDIR/r-$name.c:" <<<"$output")"
            [[ "$said" == *"'$name'"* ]] && [[ "$said" == *"which this exercise refuses: $why"* ]] ||
                fail "${allow#"$ROOT"/}: '$name' is marked refused but check-object said ($status): $said"
            n=$((n + 1))
        done
    done
    [ "$n" -ge 10 ] || fail "only $n refusals checked"
}

@test "the allow lists hold the families of each topic: a correct alternative of each is accepted" {
    # one call of each family the exercises' topics use, that the lists refused before
    calls_object "$ROOT/02_driver_context/harness/context_leak/allow" cuMemGetInfo_v2 cuCtxGetApiVersion
    assert_success
    calls_object "$ROOT/03_pinned_memory/harness/driver_pinned/allow" cuCtxPopCurrent_v2 cuCtxPushCurrent_v2
    assert_success
    calls_object "$ROOT/04_streams_overlap/harness/driver.allow" cuMemHostRegister_v2 cuMemHostUnregister
    assert_success
    calls_object "$ROOT/04_streams_overlap/harness/legacy.allow" cuStreamCreate cuStreamDestroy_v2
    assert_success
    calls_object "$ROOT/05_ptx_module/harness/library_kernel/allow" cuLibraryGetModule cuModuleGetFunction
    assert_success
    calls_object "$ROOT/01_hello_runtime/harness/first_context/allow" cuMemGetInfo_v2 cudaMemGetInfo
    assert_success
    # issue 49: the families a correct file used that did not link before the loader was generated
    calls_object "$ROOT/02_driver_context/harness/stack_order/allow" cuMemsetD8_v2 cuMemcpy cuPointerGetAttributes
    assert_success
    calls_object "$ROOT/04_streams_overlap/harness/driver.allow" cuMemcpyAsync cuMemsetD32Async cuStreamQuery cuCtxGetStreamPriorityRange
    assert_success
    calls_object "$ROOT/05_ptx_module/harness/library_kernel/allow" cuLibraryEnumerateKernels cuLibraryGetKernelCount cuKernelGetName
    assert_success
    # and what stays narrow: the C library's file and process calls
    calls_object "$ROOT/02_driver_context/harness/context_leak/allow" open
    assert_failure 1
}

@test "check-object: an allowed Driver API call that the loader does not forward is refused by name, not left to the link" {
    local t="$BATS_TEST_TMPDIR" allow="$ROOT/02_driver_context/harness/stack_order/allow"
    local src="$ROOT/02_driver_context/solutions/stack_order/stack_order.c"
    sh "$ROOT/common/driver-forward" "$CUDA_PATH_FOUND/include" "$t/table.h"
    grep -v '^    X(cuCtxPopCurrent_v2,' "$t/table.h" >"$t/short.h"
    compile 02_driver_context "$src" "$t/s.o"
    cp "$t/s.o" "$t/s2.o"
    cp "$t/s.o" "$t/s3.o"
    CHECK_OBJECT_DRIVER_TABLE="$t/short.h" run bash "$CHECK" "$allow" "$t/s.o" "$src"
    assert_failure 1
    assert_output --regexp "^$src:10: error: refused by the grader: it calls 'cuCtxPopCurrent_v2', which common/driver_loader.c does not forward with this toolkit's cuda.h .*so it cannot link"
    assert_equal "${#lines[@]}" 1
    # the whole table (the build's), or none given (check-object makes it from cuda.h): accepted
    CHECK_OBJECT_DRIVER_TABLE="$t/table.h" run bash "$CHECK" "$allow" "$t/s2.o" "$src"
    assert_success
    CHECK_OBJECT_DRIVER_TABLE= run bash "$CHECK" "$allow" "$t/s3.o" "$src"
    assert_success
    # a name that a family of the list (cuCtx*) accepts but cuda.h does not declare
    calls_object "$ROOT/02_driver_context/harness/context_leak/allow" cuCtxNoSuchCall
    assert_failure 1
    assert_output --partial "it calls 'cuCtxNoSuchCall', which common/driver_loader.c does not forward"
}

@test "check-object: a .cu file keeps nvcc's own registration, and loses a constructor of its own" {
    local nvcc="$CUDA_PATH_FOUND/bin/nvcc"
    [ -x "$nvcc" ] || skip "no nvcc in $CUDA_PATH_FOUND/bin"
    local d="$BATS_TEST_TMPDIR"
    printf '%s\n' '__global__ void k(float *x) { x[threadIdx.x] *= 2; }' \
        'extern "C" int run(float *d) { k<<<1, 32>>>(d); return (int)cudaGetLastError(); }' >"$d/k.cu"
    "$nvcc" -c "$d/k.cu" -o "$d/k.o"
    run bash "$CHECK" none "$d/k.o" "$d/k.cu"
    assert_success
    { cat "$d/k.cu"; echo 'struct Forge { Forge() { cudaGetLastError(); } } forge;'; } >"$d/k2.cu"
    "$nvcc" -c "$d/k2.cu" -o "$d/k2.o"
    run bash "$CHECK" none "$d/k2.o" "$d/k2.cu"
    assert_failure 1
    assert_output --partial "refused by the grader: it has a constructor"
    # nvcc's sections in a C file are refused
    run bash "$CHECK" none "$d/k.o" "$d/k.c"
    assert_failure 1
}

@test "an exercise built from a refused file fails to build, with the reason as its first error" {
    local from="$BATS_TEST_TMPDIR/from" into="$BATS_TEST_TMPDIR/into"
    mkdir -p "$from"
    { cat "$ROOT/01_hello_runtime/solutions/check_launch/check_launch.c"
      echo '#include <stdio.h>'
      echo '__attribute__((constructor)) static void forge(void) { puts("harness: end 1"); }'; } >"$from/check_launch.c"
    run make --no-print-directory -C "$ROOT/01_hello_runtime" exercise-from EXERCISE=check_launch \
        FROM="$from" INTO="$into"
    assert_failure
    assert_line --regexp "^$from/check_launch\\.c:[0-9]+: error: refused by the grader: it has a constructor"
    [ ! -e "$into/check_launch" ] || fail "the program was linked all the same"
}

@test "the source as the compiler reads it: a keyword spliced by backslash-newline, or pasted by a macro, in the file or a header of its own, fails the build, at its line; a system header's own asm does not" {
    local base="$ROOT/01_hello_runtime/solutions/check_launch/check_launch.c" v from into
    # each variant: the solution, then an asm statement that the build would compile and run
    # (with no syscall in it: only the source check can see it)
    for v in splice macro header; do
        from="$BATS_TEST_TMPDIR/$v/check_launch" into="$BATS_TEST_TMPDIR/$v/into"
        mkdir -p "$from"
        { cat "$base"; echo '#include <stdio.h>'; echo '#include <math.h>'; echo '#include <string.h>'
          case "$v" in
              splice) printf 'void spliced(void)\n{\n    __as\\\nm__ volatile("nop");\n}\n' ;;
              macro) printf '#define PASTE(a, b) a##b\nvoid pasted(void)\n{\n    PASTE(__as, m__) volatile("nop");\n}\n' ;;
              header) echo '#include "helper.h"'; printf 'void pasted(void)\n{\n    HELP("nop");\n}\n'
                      printf '#define PASTE(a, b) a##b\n#define HELP(s) PASTE(__as, m__) volatile(s)\n' >"$from/helper.h" ;;
          esac; } >"$from/check_launch.c"
        local at; at="$(grep -n 'volatile\|HELP("nop")' "$from/check_launch.c" | tail -n 1 | cut -d: -f1)"
        [ "$v" != splice ] || at=$((at - 1))   # (the line the keyword starts on)
        run make --no-print-directory -C "$ROOT/01_hello_runtime" exercise-from EXERCISE=check_launch \
            FROM="$from" INTO="$into"
        assert_failure
        assert_line "$from/check_launch.c:$at: error: refused by the grader: it writes inline assembly (__asm__): no code of yours may choose where it goes, run before main() or instead of a library's"
        [ ! -e "$into/check_launch" ] || fail "$v: the program was linked all the same"
    done
    # the same includes (stdio.h's own __asm__ names, math.h, string.h) without the asm: built
    from="$BATS_TEST_TMPDIR/clean/check_launch" into="$BATS_TEST_TMPDIR/clean/into"
    mkdir -p "$from"
    { cat "$base"; echo '#include <stdio.h>'; echo '#include <math.h>'; echo '#include <string.h>'
      printf '#define PASTE(a, b) a##b\nint PASTE(hel, per)(double x)\n{\n    return (int)strlen("ab") + (int)floor(x);\n}\n'; } >"$from/check_launch.c"
    run make --no-print-directory -C "$ROOT/01_hello_runtime" exercise-from EXERCISE=check_launch \
        FROM="$from" INTO="$into"
    assert_success
    refute_output --partial "refused by the grader"
    [ -x "$into/check_launch" ] || fail "the clean variant was not linked"
}

@test "grading/grade shows a refused file's reason in every format (a submission, in the sandbox)" {
    command -v jq >/dev/null 2>&1 || skip "jq is not installed"
    command -v bwrap >/dev/null 2>&1 || skip "bubblewrap is not installed"
    SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/true </dev/null >/dev/null 2>&1 ||
        skip "bubblewrap cannot make a sandbox here"
    local d="$BATS_TEST_TMPDIR" f
    mkdir -p "$d/bin" "$d/sub/03_pinned_memory/exercises/pin_it"
    printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: Toy GPU (UUID: GPU-toy)"\nexit 0\n' >"$d/bin/nvidia-smi"
    chmod +x "$d/bin/nvidia-smi"
    cp "$ROOT/grading/corpus/03_pinned_memory/wrong/pin_it/write_report/pin_it.c" "$d/sub/03_pinned_memory/exercises/pin_it/"
    PATH="$d/bin:$PATH" run env -u CUDA_VISIBLE_DEVICES "$ROOT/grading/grade" --submission "$d/sub" \
        --out "$d/out" --format all -q 03_pinned_memory
    local why="exercises/pin_it/pin_it.c:[0-9]+: error: refused by the grader: it calls or uses 'write'"
    assert_output --regexp "pin_it +0/10 +build failed +does not build: $why"
    run jq -r '.exercises[] | select(.exercise == "pin_it") | "\(.status)|\(.reason)"' "$d/out/results.json"
    assert_output --regexp "^build failed\|does not build: $why"
    for f in report.txt exercises.csv junit.xml gradescope.json prairielearn.json; do
        grep -qE "pin_it\.c:[0-9]+: error: refused by the grader: it calls or uses .{1,6}write" "$d/out/$f" ||
            fail "$f does not show the refusal"
    done
}

@test "entry_point built with CUDA 12.4 is not graded (needs CUDA 12.5+), not failed" {
    local tk="${XDG_CACHE_HOME:-$HOME/.cache}/cuda-lessons/cuda-12-debian" d="$BATS_TEST_TMPDIR"
    [ -x "$tk/bin/nvcc" ] && grep -q 'define CUDA_VERSION 120[0-4]' "$tk/include/cuda.h" ||
        skip "no CUDA 12.0-12.4 toolkit in $tk (tests/toolkits fetches one)"
    command -v bats >/dev/null 2>&1 || skip "bats is not on PATH"
    make -s --no-print-directory -C "$ROOT/02_driver_context" BUILD="$d/b" CUDA_PATH="$tk" ARCH=90 \
        "$d/b/solutions/entry_point" >/dev/null
    mkdir -p "$d/bin"
    printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: Toy GPU (UUID: GPU-toy)"\nexit 0\n' >"$d/bin/nvidia-smi"
    chmod +x "$d/bin/nvidia-smi"
    run env -u CUDA_VISIBLE_DEVICES -u CUDA_LESSONS_UNTAGGED PATH="$d/bin:$PATH" EXERCISE_BIN="$d/b/solutions" \
        bats --formatter tap --filter '^entry_point: ' "$ROOT/grading/judge/02_driver_context.bats"
    assert_success
    [ "$(grep -c '^ok .* # skip not gradable with this toolkit: needs CUDA 12.5+' <<<"$output")" -eq 2 ] ||
        fail "both entry_point tests must be skipped as not gradable: $output"
}

# The grader's channel: a probe harness built with grading/harness/exercise_harness.h.
build_probe() {
    local d="$BATS_FILE_TMPDIR" lib="$CUDA_PATH_FOUND/lib64"
    [ -x "$d/probe" ] && return 0
    [ -f "$lib/libcudart_static.a" ] || lib="$CUDA_PATH_FOUND/lib"
    [ -f "$lib/libcudart_static.a" ] || skip "this toolkit ($CUDA_PATH_FOUND) has no libcudart_static.a"
    cat >"$d/probe.c" <<'EOF'
#define _GNU_SOURCE /* readlink */
#include "exercise_harness.h"
/* Descriptors of this process open on the relay's files (harness.bash names them channel.*),
 * the channel itself aside. */
static int relay_files(void)
{
    int n = 0;
    for (int fd = 3; fd < 1024; fd++) {
        char path[64], target[512];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(path, target, sizeof target - 1);
        target[len > 0 ? len : 0] = '\0';
        n += fd != harness_channel()->fd && strstr(target, "/channel.") != NULL;
    }
    return n;
}
int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv, "a probe of the grader's channel");
    harness_mark("started");
    int c = getchar(); /* standard input is /dev/null now: nothing of the channel */
    uint32_t seed = harness_seed_now(); /* asked of the grader only now */
    harness_mark("seeded");
    harness_report("stdin", "%s", c == EOF ? "empty" : "readable");
    harness_report("argc", "%d", argc);
    harness_report("env", "%s", getenv("PROBE_SEED_SEEN") ? "set" : "unset");
    const char *mode = getenv("PROBE_MODE");
    if (mode && strcmp(mode, "twice") == 0)
        harness_report("argc", "%d", argc);
    printf("harness: forged 1\nharness: end %u\n", seed); /* stdout counts for nothing */
    if (mode && strcmp(mode, "crash") == 0)
        abort();
    if (mode && strcmp(mode, "inject") == 0) /* a line the judge did not ask for */
        (void)harness_channel_write("end 99\n", 7);
    if (mode && strcmp(mode, "early") == 0) { /* a moment given before the harness's own */
        (void)harness_channel_write("at one\n", 7);
        harness_mark("one");
    }
    if (mode && strcmp(mode, "seed_again") == 0) { /* a second seed request */
        harness_channel()->seed = 0;
        (void)harness_seed_now();
    }
    if (mode && strcmp(mode, "fresh") == 0) /* a seed the judge draws for a batch */
        harness_report("fresh", "%u", harness_fresh_seed("batch"));
    if (mode && strcmp(mode, "flood") == 0) { /* 1 MiB after the report is sent */
        int keep = dup(harness_channel()->fd);
        (void)harness_end(seed, true);
        harness_channel()->fd = keep;
        static char junk[1 << 20];
        memset(junk, 'x', sizeof junk);
        (void)harness_channel_write(junk, sizeof junk);
        return 0;
    }
    if (mode && strcmp(mode, "measure") == 0) { /* the grader reads memory while this waits */
        harness_measure("one");
        harness_mark("after_one");
        harness_measure("two");
        harness_report("relay_files", "%d", relay_files());
    }
    if (mode && strncmp(mode, "pick", 4) == 0) { /* an output, then the judge's pick of it */
        static float out[1000003];
        uint64_t at[PICK_COUNT];
        uint32_t in = harness_fresh_seed("batch");
        harness_input_fill(out, 1000003, in);
        if (strcmp(mode, "pick_last_wrong") == 0)
            out[1000002] += 1; /* the last value: every pick holds it */
        if (strcmp(mode, "pick_malformed") == 0) {
            char go[32];
            (void)harness_point("pick", "batch", go, sizeof go);
            (void)harness_channel_write("picked batch 1000003 7:3f800000\n", 32);
        } else if (strcmp(mode, "pick_twice") == 0) { /* the right answer, then another */
            char go[32], line[8192];
            (void)harness_point("pick", "batch", go, sizeof go);
            pick_positions((uint32_t)strtoul(go, NULL, 10), 1000003, at);
            int n = 0;
            for (int copy = 0; copy < 2; copy++) {
                n += snprintf(line + n, sizeof line - (size_t)n, "picked batch 1000003");
                for (int k = 0; k < PICK_COUNT; k++) {
                    uint32_t bits;
                    memcpy(&bits, &out[at[k]], sizeof bits);
                    n += snprintf(line + n, sizeof line - (size_t)n, " %llu:%08x",
                                  (unsigned long long)at[k], bits);
                }
                line[n++] = '\n';
            }
            (void)harness_channel_write(line, (size_t)n);
        } else if (strcmp(mode, "pick_unasked") == 0) {
            (void)harness_channel_write("pick batch\n", 11);
        } else {
            (void)harness_pick("batch", out, 1000003, at);
        }
        harness_report("input", "%u", in);
    }
    if (mode && strcmp(mode, "bad_measure") == 0)
        (void)harness_channel_write("measure One!\n", 13);
    int rc = harness_end(seed, true);
    if (mode && strcmp(mode, "after") == 0)
        (void)harness_end(seed, true);
    return rc;
}
EOF
    "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$CUDA_PATH_FOUND/include" "$d/probe.c" \
        "$ROOT/common/check.c" "$ROOT/common/driver_loader.c" "$ROOT/grading/harness/syscall_filter.c" -L"$lib" -lcudart_static -ldl -lpthread -lrt \
        -o "$d/probe"
}

# The probe's points, in its order (the judge asks for these).
PROBE_POINTS="at:started seed at:seeded"

@test "the channel: the judge asks, the seed comes in when asked, moments are stamped by the judge, the report goes out once; stdout counts for nothing" {
    build_probe || fail "the probe does not build (the toolkit has libcudart_static: see the compiler message above)"
    load ../grading/judge/harness
    HARNESS_POINTS="$PROBE_POINTS" run_harness 4242 "$BATS_FILE_TMPDIR/probe"
    assert_success
    [ -z "$report_why" ] || fail "$report_why"
    assert_equal "$(harness_value stdin)" empty
    assert_equal "$(harness_value argc)" 1
    assert_equal "$(harness_value end)" 4242
    run harness_value forged
    assert_failure
    # the judge's stamps, in its own order: the program ran before it had the seed
    local started asked seeded
    started="$(harness_clock started)" asked="$(harness_clock seed)" seeded="$(harness_clock seeded)"
    awk -v a="$started" -v b="$asked" -v c="$seeded" 'BEGIN { exit !(a <= b && b <= c) }' ||
        fail "stamps out of order: started $started, seed asked $asked, seeded $seeded"
    # a run of the same file (run_harness) reads the kept run, stamps included
    clock=""
    HARNESS_POINTS="$PROBE_POINTS" run_harness 4242 "$BATS_FILE_TMPDIR/probe"
    assert_equal "$(harness_clock started)" "$started"
    # a seed the judge draws for a batch: given when asked, kept outside, never the run's seed
    HARNESS_POINTS="$PROBE_POINTS fresh:batch" PROBE_MODE=fresh run_harness_fresh 4242 "$BATS_FILE_TMPDIR/probe"
    [ -z "$report_why" ] || fail "$report_why"
    assert_equal "$(harness_value fresh)" "$(harness_fresh batch)"
    [ "$(harness_fresh batch)" != 4242 ] || fail "the fresh seed is the run's seed"
    # no seed before it is asked: a program that never asks gets none, and its report does not count
    HARNESS_POINTS="$PROBE_POINTS" PROBE_MODE=crash run_harness_fresh 4242 "$BATS_FILE_TMPDIR/probe"
    grep -q '^seed ' <<<"$clock" || fail "the probe asked before crashing: $clock"
    # the same through the grading sandbox (bubblewrap), where it works: the channel passes
    if command -v bwrap >/dev/null 2>&1 && SANDBOX_MODE=bwrap "$ROOT/grading/sandbox-run" /bin/true </dev/null >/dev/null 2>&1; then
        HARNESS_POINTS="$PROBE_POINTS" SANDBOX="$ROOT/grading/sandbox-run" SANDBOX_MODE=bwrap run_harness_fresh 4343 "$BATS_FILE_TMPDIR/probe"
        assert_success
        [ -z "$report_why" ] || fail "in the sandbox: $report_why"
        assert_equal "$(harness_value end)" 4343
        assert_equal "$(harness_value stdin)" empty
    fi
    # run by hand (no channel): the report on stdout, seed from argv
    run "$BATS_FILE_TMPDIR/probe" 17 </dev/null
    assert_success
    assert_line "harness: end 17"
}

@test "the channel: a key reported twice, anything after the end, or no end fails the run" {
    build_probe || fail "the probe does not build (the toolkit has libcudart_static: see the compiler message above)"
    load ../grading/judge/harness
    export HARNESS_POINTS="$PROBE_POINTS"
    PROBE_MODE=twice run_harness_fresh 99 "$BATS_FILE_TMPDIR/probe"
    assert_equal "$report_why" "the report names 'argc' twice"
    run harness_value end
    assert_failure
    PROBE_MODE=after run_harness_fresh 99 "$BATS_FILE_TMPDIR/probe"
    [ -z "$report_why" ] || fail "the report is written once (the second harness_end writes nothing): $report_why"
    PROBE_MODE=crash run_harness_fresh 99 "$BATS_FILE_TMPDIR/probe"
    assert_equal "$report_why" "the harness wrote no report (the program stopped before the end of the harness)"
    # the relay's exit status is the program's, a signal's as the shell's
    assert_equal "$status" 134
    # a report forged into the channel file's tail by hand: after the end
    local f="$BATS_TEST_TMPDIR/chan"
    printf '7\nargc 1\nend 7\nend 7\n' >"$f"
    harness_read_report 7 "$f"
    [ -n "$report_why" ] || fail "two end lines were accepted"
    printf '7\nargc 1\nend 7\nlate 1\n' >"$f"
    harness_read_report 7 "$f"
    assert_equal "$report_why" "something came after the report's end"
}

@test "the channel: the judge owns the conversation: an unasked line, an early or second seed request, a student's mark, a flood after the report: 0 points, protocol broken, flagged for review" {
    build_probe || fail "the probe does not build (the toolkit has libcudart_static: see the compiler message above)"
    load ../grading/judge/harness
    export HARNESS_POINTS="$PROBE_POINTS" GRADE_REVIEW_FILE="$BATS_TEST_TMPDIR/review"
    local mode
    # each is a run of its own, and each must end as "protocol broken: WHAT", written for review
    for mode in inject seed_again early flood; do
        : >"$GRADE_REVIEW_FILE"
        [ "$mode" != early ] || HARNESS_POINTS="$PROBE_POINTS at:one"
        SECONDS=0
        PROBE_MODE=$mode run_harness_fresh 99 "$BATS_FILE_TMPDIR/probe"
        HARNESS_POINTS="$PROBE_POINTS"
        [[ "$report_why" == "protocol broken: "* ]] || fail "$mode: not broken: '$report_why' (report: $report)"
        grep -qxF "$report_why" "$GRADE_REVIEW_FILE" || fail "$mode: not flagged for review: $(cat "$GRADE_REVIEW_FILE")"
        run harness_value end
        assert_failure
        [ "$SECONDS" -lt 20 ] || fail "$mode: the judge took ${SECONDS}s to end the run"
        case "$mode" in
            inject) [[ "$report_why" == *"'end 99'"* ]] || fail "inject: the line is not named: $report_why" ;;
            seed_again) [[ "$report_why" == *"seed seed"* ]] || fail "seed_again: $report_why" ;;
            flood) assert_equal "$report_why" "protocol broken: a byte after the report" ;;
        esac
    done
    # a seed request before the harness's own (code run before main would do it): the program's
    # first line is not the judge's first point
    HARNESS_POINTS="seed $PROBE_POINTS" run_harness_fresh 99 "$BATS_FILE_TMPDIR/probe"
    [[ "$report_why" == "protocol broken: 'at started' where the judge asked for 'seed seed'" ]] ||
        fail "a point out of order: $report_why"
    # a line of the judge's own caps: a point longer than 127 bytes
    run "$(channel_program)" --points 'seed' 5 "$BATS_TEST_TMPDIR/c" sh -c 'exec >&0; read -r l; head -c 4000 /dev/zero | tr "\0" a; echo'
    assert_equal "$(cat "$BATS_TEST_TMPDIR/c.broken")" "a line longer than 127 bytes"
    # a report larger than the cap
    run "$(channel_program)" --points 'seed' 5 "$BATS_TEST_TMPDIR/c" sh -c 'exec >&0; read -r l; echo "report 70000"; head -c 70000 /dev/zero'
    assert_equal "$(cat "$BATS_TEST_TMPDIR/c.broken")" "a report of '70000' bytes (at most 65536)"
    [ "$(wc -c <"$BATS_TEST_TMPDIR/c")" -le 3 ] || fail "the judge stored what it refused: $(wc -c <"$BATS_TEST_TMPDIR/c") bytes"
    # a program that keeps the channel and ignores its end after a break is ended by the judge
    SECONDS=0
    run "$(channel_program)" --points 'seed' 5 "$BATS_TEST_TMPDIR/c" sh -c 'exec >&0; echo unasked; trap "" PIPE; exec sleep 60'
    [ "$SECONDS" -lt 15 ] || fail "the judge waited ${SECONDS}s for a program it had stopped talking to"
    assert_equal "$status" 137
}

@test "the channel: a pick: the judge draws its seed after the output exists, the positions cover the whole output and its last value, the values are checked outside; an unasked pick, a second answer or a malformed one breaks the conversation" {
    build_probe || fail "the probe does not build (the toolkit has libcudart_static: see the compiler message above)"
    load ../grading/judge/harness
    export GRADE_REVIEW_FILE="$BATS_TEST_TMPDIR/review"
    local points="$PROBE_POINTS fresh:batch pick:batch" in s n rest at max=0 low=0
    HARNESS_POINTS="$points" PROBE_MODE=pick run_harness_fresh 31 "$BATS_FILE_TMPDIR/probe"
    assert_equal "$report_why" ""
    in="$(harness_fresh batch)"
    assert_equal "$(harness_value input)" "$in"
    read -r s n rest <<<"$(harness_picks batch)"
    assert_equal "$n" 1000003
    # 64 positions, the last the output's last; the rest spread over all of it
    assert_equal "$(wc -w <<<"$rest")" 64
    [[ "$rest" == *" 1000002:"* ]] || [[ "$rest" == "1000002:"* ]] || fail "the last value was not picked: $rest"
    for at in $rest; do
        at="${at%%:*}"
        [ "$at" -lt 1000003 ] || fail "position $at past the output"
        [ "$at" -le "$max" ] || max="$at"
        [ "$at" -ge 500000 ] || low=$((low + 1))
    done
    [ "$low" -ge 16 ] && [ "$low" -le 48 ] || fail "$low of 64 positions in the first half: not spread over the output: $rest"
    # the seed is the judge's, drawn at the pick: not the input's, nor the run's
    [ "$s" != "$in" ] && [ "$s" != 31 ] || fail "the pick's seed $s is not one of its own"
    harness_picks_right batch "$in" 0
    run harness_picks_right batch "$((in + 1))" 0
    assert_failure
    # values the judge checks: the last one changed is seen in every pick
    HARNESS_POINTS="$points" PROBE_MODE=pick_last_wrong run_harness_fresh 31 "$BATS_FILE_TMPDIR/probe"
    assert_equal "$report_why" ""
    assert_equal "$(printf 'batch %s 0\n' "$(harness_fresh batch)" | harness_picks_wrong)" batch
    assert_equal "$(printf 'other 5 0\n' | harness_picks_wrong)" "other"
    # broken: a pick the judge did not ask for, a second answer, a malformed answer
    for mode in pick_unasked pick_twice pick_malformed; do
        : >"$GRADE_REVIEW_FILE"
        # (the unasked pick: a list without it)
        export PROBE_MODE=$mode
        HARNESS_POINTS="$points"
        [ "$mode" != pick_unasked ] || HARNESS_POINTS="$PROBE_POINTS fresh:batch"
        run_harness_fresh 31 "$BATS_FILE_TMPDIR/probe"
        unset PROBE_MODE
        [[ "$report_why" == "protocol broken: "* ]] || fail "$mode: not broken: '$report_why'"
        grep -qxF "$report_why" "$GRADE_REVIEW_FILE" || fail "$mode: not flagged for review"
        case "$mode" in
            pick_unasked) assert_equal "$report_why" "protocol broken: a line the judge did not ask for: 'pick batch'" ;;
            pick_twice) [[ "$report_why" == "protocol broken: a second answer to a pick: 'picked batch"* ]] || fail "$mode: $report_why" ;;
            pick_malformed) assert_equal "$report_why" "protocol broken: the answer to 'pick batch': a position the judge did not pick" ;;
        esac
    done
    # a pick the program answers with nothing, or with a line past the cap
    run "$(channel_program)" --points 'pick:x' 5 "$BATS_TEST_TMPDIR/c" sh -c 'exec >&0; read -r l; echo "pick x"; read -r l'
    assert_equal "$(cat "$BATS_TEST_TMPDIR/c.broken")" "no answer to 'pick x'"
    run "$(channel_program)" --points 'pick:x' 5 "$BATS_TEST_TMPDIR/c" sh -c 'exec >&0; read -r l; echo "pick x"; read -r l; printf "picked x 9 "; head -c 5000 /dev/zero | tr "\0" 1; echo'
    assert_equal "$(cat "$BATS_TEST_TMPDIR/c.broken")" "a line longer than 4095 bytes"
}

# A CPU stand-in of lesson 04's clocked runs (04_streams_overlap/harness/harness_main.c,
# clocked_runs): the same points and report, the work done on the host; a pipeline run's input
# takes 20 ms more to make (before its start, outside the clock); STAND_IN=wrong leaves one
# pipeline run's output unworked, STAND_IN=lie reports wrong runs that were right.
build_clock_stand_in() {
    local d="$BATS_FILE_TMPDIR" lib="$CUDA_PATH_FOUND/lib64"
    [ -x "$d/clocked" ] && return 0
    [ -f "$lib/libcudart_static.a" ] || lib="$CUDA_PATH_FOUND/lib"
    [ -f "$lib/libcudart_static.a" ] || skip "this toolkit ($CUDA_PATH_FOUND) has no libcudart_static.a"
    cat >"$d/clocked.c" <<'EOF'
#define _GNU_SOURCE /* usleep */
#include "exercise_harness.h"
#include <math.h>
static float worked(float x, int work)
{
    for (int k = 0; k < work; k++)
        x = fmaf(x, 0.9999f, 0.0001f);
    return x;
}
int main(int argc, char **argv)
{
    static const char *const kind[3] = {"check", "sequential", "pipeline"};
    static float in[100003], out[100003];
    const char *mode = getenv("STAND_IN") ? getenv("STAND_IN") : "";
    long n = 100003, runs = 0;
    lesson_init(argv[0]);
    if (!harness_channel_open() || argc != 3 || !parse_long(argv[2], 1, 100, "N", &runs))
        return 2;
    uint32_t seed = harness_seed_now();
    int rounds = getenv("STAND_IN_ROUNDS") ? atoi(getenv("STAND_IN_ROUNDS")) : 3;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 3; k++)
            for (long i = 0; i < runs; i++) {
                char name[48];
                uint64_t at[PICK_COUNT];
                snprintf(name, sizeof name, "%s%d_%ld", kind[k], r, i);
                harness_input_fill(in, (size_t)n, harness_fresh_seed(name));
                usleep(k == 2 ? 20000 : 0); /* a slow making of the input */
                char start[64];
                snprintf(start, sizeof start, "%s_start", name);
                harness_mark(start);
                int work = k == 2 && i == 1 && strcmp(mode, "wrong") == 0 ? 0 : 10;
                for (long j = 0; k && j < n; j++)
                    out[j] = worked(in[j], work);
                /* the GPU's part; the first pipeline run of each batch 40 ms slower (a slow moment) */
                usleep(k == 1 ? 16000 : k == 2 ? (i == 0 ? 44000 : 4000) : 0);
                if (!harness_pick(name, k ? out : in, (size_t)n, at))
                    return 1;
            }
    harness_report("clocked", "%ld %d %d", runs, 10, strcmp(mode, "lie") == 0 ? 3 : 0);
    return harness_end(seed, true);
}
EOF
    "${CC:-cc}" -std=c11 -O2 -Wall -Wextra -Werror -I"$ROOT/common" -I"$ROOT/grading/harness" -I"$CUDA_PATH_FOUND/include" "$d/clocked.c" \
        "$ROOT/common/check.c" "$ROOT/common/driver_loader.c" "$ROOT/grading/harness/syscall_filter.c" -L"$lib" -lcudart_static -ldl -lpthread -lrt -lm \
        -o "$d/clocked"
}

@test "04's clocked runs, judged: the grader's clock over runs it checked at its picks; a wrong pick fails, a report that contradicts the grader is flagged" {
    build_clock_stand_in || fail "the stand-in does not build"
    load ../grading/judge/harness
    local f
    # the grader's own functions, from its file
    for f in clocked_points clock_batches clock_judged clock_speedup; do
        eval "$(awk -v f="$f" 'index($0, f "() {") == 1 { on = 1 } on { print } on && /^}/ { exit }' "$ROOT/grading/judge/04_streams_overlap.bats")"
    done
    export GRADE_REVIEW_FILE="$BATS_TEST_TMPDIR/review" GRADE_RUNS_FILE="$BATS_TEST_TMPDIR/runs"
    clocked_points 3
    run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 3
    assert_equal "$report_why" ""
    # the record of the run (grading/bench-class's "program runs"): this test, the program and
    # its arguments, the judge's stamps of the seed's request and of the report, the whole time
    # (the 27 clocked runs take 27 x 2 ms and more: between the seed and the report)
    run awk -F'\t' -v t="$BATS_TEST_DESCRIPTION" '$1 == t && $2 == "clocked x 3 " && $3 + 54 < $4 && $4 <= $5 { n++ } END { print NR, n + 0 }' "$GRADE_RUNS_FILE"
    assert_output "1 1"
    unset GRADE_RUNS_FILE
    clock_speedup
    # 9 batches of 3 runs, each timed from its start (its input made) to its pick: a sequential
    # run 16 ms more than the checks alone, a pipeline run 4 ms (the work on the host, a few ms,
    # is in both); each kind's fastest run counts: by the sums of the batches, with one pipeline
    # run of each 40 ms slower, the speed-up would be under 1;
    # the pipeline's 20 ms more of making its inputs is outside the clock (inside, the speed-up
    # would be under 1), and said
    assert_equal "$(wc -l <<<"$clock_rows")" 9
    awk -v x="$clock_x" 'BEGIN { exit !(x > 1.5 && x < 4.5) }' || fail "speed-up $clock_x ($clock_why)"
    awk '$1 ~ /^pipeline/ && $5 < 3 * 20 { exit 1 }' <<<"$clock_rows" || fail "the making of the pipeline's inputs not seen: $clock_rows"
    [[ "$clock_why" =~ making\ each\ input\ took\ [0-9.]+\ ms,\ outside\ the\ clock ]] || fail "$clock_why"
    [ ! -s "$GRADE_REVIEW_FILE" ] || fail "flagged: $(cat "$GRADE_REVIEW_FILE")"
    # one pipeline run left unworked: the grader's picks see it (the stand-in's own count says 0)
    STAND_IN=wrong run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 3
    run clock_judged ""
    assert_failure
    assert_output --partial "inconsistent report: the harness found 0 of the clocked runs wrong at the grader's picks, the grader 3"
    grep -q "^inconsistent report: " "$GRADE_REVIEW_FILE" || fail "not flagged for review"
    # a report of wrong runs the grader found right; a run count not the grader's
    STAND_IN=lie run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 3
    run clock_judged ""
    assert_failure
    assert_output --partial "inconsistent report: the harness found 3 of the clocked runs wrong at the grader's picks, the grader 0"
    clocked_points 2
    run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 2
    CLOCKED=3 run clock_judged ""
    assert_failure
    assert_output --partial "inconsistent report: the harness says it ran 2 runs a batch where the grader asked for 3"
    # one round (the harness's --reps 0, the result only): 3 batches due, and judged right
    clocked_points 2 1
    STAND_IN_ROUNDS=1 run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 2
    assert_equal "$report_why" ""
    clock_judged ""
    assert_equal "$(wc -l <<<"$clock_rows")" 3
    # a harness that runs 3 rounds where the judge asked for 1 speaks unasked: protocol broken
    STAND_IN_ROUNDS=3 run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 2
    [[ "$report_why" == *"protocol broken"* ]] || fail "not refused: '$report_why'"
    # and one that runs 1 round where the judge asked for 3 leaves 6 batches untimed
    clocked_points 2
    STAND_IN_ROUNDS=1 run_harness_fresh 71 "$BATS_FILE_TMPDIR/clocked" x 2
    run clock_judged ""
    assert_failure
}

@test "the channel: the grader reads the program's device memory from outside (NVML) while the harness waits" {
    build_probe || fail "the probe does not build (the toolkit has libcudart_static: see the compiler message above)"
    load ../grading/judge/harness
    local d="$BATS_TEST_TMPDIR"
    # A stand-in nvidia-smi: every process of this machine, each at the figure in $d/mib (then
    # 50 more for the next call), after 0.3 s. Only the program's own process may be counted.
    cat >"$d/smi" <<EOF
#!/bin/bash
[ "\$*" = "--query-compute-apps=pid,used_memory --format=csv,noheader,nounits" ] || exit 9
sleep 0.3
mib=\$(cat "$d/mib"); echo \$((mib + 50)) >"$d/mib"
case "\$(cat "$d/how")" in
    all) for p in /proc/[0-9]*; do echo "\${p#/proc/}, \$mib"; done ;;
    na) for p in /proc/[0-9]*; do echo "\${p#/proc/}, [N/A]"; done ;;
    none) echo "1, \$mib" ;;
    hang) echo all >"$d/how"; exec sleep 30 ;; # this time only
esac
EOF
    chmod +x "$d/smi"
    echo 100 >"$d/mib"
    echo all >"$d/how"
    export HARNESS_POINTS="$PROBE_POINTS measure:one at:after_one measure:two"
    GRADER_NVIDIA_SMI="$d/smi" PROBE_MODE=measure run_harness_fresh 77 "$BATS_FILE_TMPDIR/probe"
    assert_success
    [ -z "$report_why" ] || fail "$report_why"
    assert_equal "$(harness_memory one)" 100
    assert_equal "$(harness_memory two)" 150
    assert_equal "$(harness_value relay_files)" 0 # the relay's files are closed on exec
    # the harness waited for the figure: its next mark came after the stand-in's 0.3 s
    local one after
    one="$(harness_clock one)" after="$(harness_clock after_one)"
    awk -v a="$one" -v b="$after" 'BEGIN { exit !(b - a >= 300) }' ||
        fail "the harness did not wait for the measure: one at $one ms, its next mark at $after ms"
    # NVML lists none of the program's processes (a container), gives no figure, or is absent:
    # unseen, and the run still counts
    echo none >"$d/how"
    GRADER_NVIDIA_SMI="$d/smi" PROBE_MODE=measure run_harness_fresh 77 "$BATS_FILE_TMPDIR/probe"
    [ -z "$report_why" ] || fail "$report_why"
    run harness_memory one
    assert_failure
    assert_output --partial "NVML lists no process of the program"
    echo na >"$d/how"
    GRADER_NVIDIA_SMI="$d/smi" PROBE_MODE=measure run_harness_fresh 77 "$BATS_FILE_TMPDIR/probe"
    run harness_memory two
    assert_failure
    assert_output --partial "NVML gives no memory figure"
    # an nvidia-smi that does not answer is ended after 10 s: unseen, and the program goes on
    echo hang >"$d/how"
    GRADER_NVIDIA_SMI="$d/smi" PROBE_MODE=measure run_harness_fresh 77 "$BATS_FILE_TMPDIR/probe"
    [ -z "$report_why" ] || fail "$report_why"
    run harness_memory one
    assert_output "unseen (nvidia-smi gave no answer within 10 s)"
    [[ "$(harness_memory two)" =~ ^[0-9]+$ ]] || fail "the next measure was not read: $memory"
    GRADER_NVIDIA_SMI="$d/absent" PROBE_MODE=measure run_harness_fresh 77 "$BATS_FILE_TMPDIR/probe"
    [ -z "$report_why" ] || fail "$report_why"
    run harness_memory one
    assert_failure
    assert_output --partial "nvidia-smi could not be run here"
    # a measure the judge never asked for: the run does not count, and NVML is not read for it
    echo 100 >"$d/mib"
    GRADER_NVIDIA_SMI="$d/smi" PROBE_MODE=bad_measure run_harness_fresh 77 "$BATS_FILE_TMPDIR/probe"
    [[ "$report_why" == "protocol broken: "*"measure One!"* ]] || fail "$report_why"
    assert_equal "$(cat "$d/mib")" 100
}

# corpus_build_only [MATCH]: `run` of grading/corpus/corpus --build-only (CORPUS_MATCH=MATCH
# where given), made once per file for each MATCH and kept in BATS_FILE_TMPDIR: where the whole
# corpus is built (CORPUS_BUILD=1, CI), the two tests below read the same build of it, whose
# refused variants are the first test's (each was built twice before: 25 s on two cores).
# corpus_file [MATCH]: where that build's output goes (.out, .status; .started once begun).
corpus_file() { echo "$BATS_FILE_TMPDIR/corpus-$(printf '%s' "${1:-all}" | md5sum | cut -c1-16)"; }
# corpus_build_start [MATCH]: that build started in the background (its output and status into
# corpus_file's files; fd 3 closed, which bats would wait for)
corpus_build_start() {
    local f
    f="$(corpus_file "${1:-}")"
    : >"$f.started"
    ( env ${1:+CORPUS_MATCH="$1"} bash "$ROOT/grading/corpus/corpus" --build-only >"$f.out" 2>&1
      echo "$?" >"$f.st" && mv "$f.st" "$f.status" ) 3>&- </dev/null &
}
corpus_build_only() {
    local f i
    f="$(corpus_file "${1:-}")"
    [ -f "$f.started" ] || corpus_build_start "${1:-}"
    for ((i = 0; i < 3600; i++)); do [ -f "$f.status" ] && break; sleep 1; done
    [ -f "$f.status" ] || fail "the corpus's build (grading/corpus/corpus --build-only) did not end within an hour: $(tail -n 3 "$f.out")"
    run sh -c 'cat "$1"; exit "$(cat "$2")"' _ "$f.out" "$f.status"
}

@test "the corpus: every variant that must be refused is refused, for its reason (build only)" {
    command -v bats >/dev/null 2>&1 || skip "bats is not on PATH"
    local match
    match="$(cd "$ROOT/grading/corpus" && find . -name refused | sed 's,^\./,,; s,/refused$,,' | paste -sd'|' -)"
    [ -n "$match" ] || fail "the corpus has no variant that must be refused"
    # (the whole corpus's build where the next test builds it: its refused variants are these)
    if [ -n "${CI:-}${CORPUS_BUILD:-}" ]; then corpus_build_only; else corpus_build_only "^($match)\$"; fi
    assert_success
    assert_output --regexp 'ok \(refused: '
    refute_output --partial WRONG
    [ "$(grep -c 'ok (refused: ' <<<"$output")" -eq "$(grep -c . <<<"${match//|/$'\n'}")" ] ||
        fail "not every variant with a file 'refused' was refused: $output"
}

@test "the corpus: every variant builds, or is refused for its reason (all of it; CI, or CORPUS_BUILD=1)" {
    [ -n "${CI:-}${CORPUS_BUILD:-}" ] || skip "about a minute on two cores: run where CI or CORPUS_BUILD=1 is set"
    corpus_build_only
    assert_success
    assert_output --regexp 'corpus: [0-9]+ variants, 0 not as they must be'
}

@test "shellcheck: grading/check/check-object, grading/corpus/corpus and grading/judge/harness.bash are clean" {
    command -v shellcheck >/dev/null 2>&1 || skip "shellcheck is not installed (.ci/run installs it)"
    run shellcheck -x "$ROOT/grading/check/check-object" "$ROOT/grading/corpus/corpus"
    assert_success
    run shellcheck -s bash "$ROOT/grading/judge/harness.bash"
    assert_success
}
