#!/usr/bin/env bats
# tests/ensure-bats and tests/stage-bats: where the system's bats will not do (missing, older
# than 1.7, or without bats-assert and bats-support: Ubuntu 22.04, Colab's runtime, has bats 1.2.1
# and no package of either library), the releases are staged with git and make test, make check
# and grading/grade use that copy. Here git clones from local repositories made from this
# machine's own bats (CUDA_LESSONS_BATS_GIT), tagged as the pinned releases; no network.

load test_helper

setup_file() {
    local d="$BATS_FILE_TMPDIR" core lib
    export MIRROR="file://$d/mirror" OLD="$d/old-bin"
    core="$BATS_ROOT" # the prefix of the bats that runs this file (lib/bats-core, libexec/bats-core)
    lib="$(for p in ${BATS_LIB_PATH//:/ } /usr/lib/bats; do [ -f "$p/bats-assert/load.bash" ] && { echo "$p"; break; }; done)"
    mkdir -p "$d/mirror" "$OLD"
    # bats-core: an install.sh that installs this machine's bats into PREFIX, as bats-core's does
    mkdir -p "$d/src/bats-core"
    cat >"$d/src/bats-core/install.sh" <<EOS
#!/bin/sh
set -e
mkdir -p "\$1/bin" "\$1/lib" "\$1/libexec"
cp -R "$core/lib/bats-core" "\$1/lib/"
cp -R "$core/libexec/bats-core" "\$1/libexec/"
cp "$core/bin/bats" "\$1/bin/bats"
EOS
    chmod +x "$d/src/bats-core/install.sh"
    cp -R "$lib/bats-support" "$d/src/bats-support"
    cp -R "$lib/bats-assert" "$d/src/bats-assert"
    local name tag
    for name in bats-core:v1.11.1 bats-support:v0.3.0 bats-assert:v2.1.0; do
        tag="${name#*:}" name="${name%%:*}"
        git -C "$d/src/$name" init -q && git -C "$d/src/$name" add -A &&
            git -C "$d/src/$name" -c user.name=t -c user.email=t@t commit -q -m "$tag" &&
            git -C "$d/src/$name" tag "$tag" && git clone -q --bare "$d/src/$name" "$d/mirror/$name"
    done
    # a bats 1.2.1 and an apt-get without bats-assert, as Ubuntu 22.04's, first on PATH
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Bats 1.2.1"; exit 0; }\necho "this old bats cannot run the suite" >&2; exit 1\n' >"$OLD/bats"
    printf '#!/bin/sh\necho "E: Unable to locate package bats-assert"\nexit 100\n' >"$OLD/apt-get"
    chmod +x "$OLD/bats" "$OLD/apt-get"
}

# colab_path: PATH with the old bats and apt-get first, and without the folder bats itself puts
# there for its own programs
colab_path() {
    printf '%s' "$OLD:$(printf '%s' "$PATH" | tr : '\n' | grep -vx "${BATS_LIBEXEC:-/nonexistent}" | paste -sd: -)"
}

# a run of CMD as on Colab: the old bats and the apt-get that has no bats-assert first on PATH,
# the default BATS_LIB_PATH, a HOME of its own (the staged copy's folder), the local mirror for git
as_colab() {
    run env -u BATS_LIB_PATH -u CUDA_LESSONS_BATS_DIR -u XDG_CACHE_HOME HOME="$BATS_TEST_TMPDIR/home" \
        CUDA_LESSONS_BATS_GIT="$MIRROR" PATH="$(colab_path)" "$@"
}

@test "ensure-bats: a bats older than 1.7 is not taken; the pinned releases are staged with git and named" {
    command -v git >/dev/null || skip "no git"
    as_colab sh "$ROOT/tests/ensure-bats" bats
    assert_success
    assert_output --partial "this bats: Bats 1.2.1"
    assert_output --partial "fetching bats-core v1.11.1"
    assert_line "$BATS_TEST_TMPDIR/home/.cache/cuda-lessons/bats"
    local s="$BATS_TEST_TMPDIR/home/.cache/cuda-lessons/bats"
    [ -x "$s/bin/bats" ] && [ -f "$s/lib/bats-assert/load.bash" ] && [ -f "$s/lib/bats-support/load.bash" ] ||
        fail "not staged: $(find "$s" -maxdepth 3 | head -20)"
    # the staged copy runs a test that loads both libraries
    printf '%s\n' 'bats_load_library bats-support' 'bats_load_library bats-assert' \
        '@test "t" { run echo hi; assert_output hi; }' >"$BATS_TEST_TMPDIR/t.bats"
    run env BATS_LIB_PATH="$s/lib" "$s/bin/bats" "$BATS_TEST_TMPDIR/t.bats"
    assert_success
    assert_line "ok 1 t"
    # a second call finds it staged: no fetch, the same folder
    as_colab sh "$ROOT/tests/ensure-bats" bats
    assert_success
    refute_output --partial "fetching"
    assert_output "$s"
}

@test "ensure-bats: nothing to fetch from: exit 1 with what was found and the three ways to get it" {
    MIRROR="file://$BATS_TEST_TMPDIR/nothing" as_colab sh "$ROOT/tests/ensure-bats" bats
    assert_failure 1
    assert_output --partial "could not clone file://$BATS_TEST_TMPDIR/nothing/bats-core at v1.11.1"
    assert_output --partial "is Bats 1.2.1, older than 1.7"
    assert_output --partial "sh tests/stage-bats"
    [ ! -e "$BATS_TEST_TMPDIR/home/.cache/cuda-lessons/bats" ] || fail "a half-staged folder was left"
}

@test "ensure-bats: a good bats and its libraries: nothing printed, nothing fetched; a BATS of the user's own is never replaced" {
    run sh "$ROOT/tests/ensure-bats" bats
    assert_success
    assert_output ""
    run env BATS_LIB_PATH=/usr/lib/bats-none-here CUDA_LESSONS_BATS_GIT="$MIRROR" HOME="$BATS_TEST_TMPDIR" \
        sh "$ROOT/tests/ensure-bats" "$OLD/bats"
    assert_failure 1
    assert_output --partial "is Bats 1.2.1, older than 1.7"
    refute_output --partial "fetching"
}

@test "make test and grading/grade use the staged copy where the system's bats is too old" {
    local s="$BATS_TEST_TMPDIR/staged"
    run env CUDA_LESSONS_BATS_GIT="$MIRROR" sh "$ROOT/tests/stage-bats" "$s"
    assert_success
    assert_line "$s"
    # make test's recipe: the old bats first on PATH, the staged copy named by ensure-bats
    printf '%s\n' '@test "the staged bats ran this" { [ "$BATS_LIB_PATH" = "$STAGED/lib" ]; }' >"$BATS_TEST_TMPDIR/staged.bats"
    run env -u MAKEFLAGS -u BATS_LIB_PATH STAGED="$s" CUDA_LESSONS_BATS_DIR="$s" PATH="$(colab_path)" \
        make -s -C "$ROOT" test TESTS="$BATS_TEST_TMPDIR/staged.bats"
    assert_success
    assert_line --partial "ok 1 the staged bats ran this"
    assert_line "1 passed, 0 failed, 0 skipped"
    # grade takes it the same way (its own code, read from its file)
    run grep -c 'BATS="$staged_bats/bin/bats" BATS_LIB_PATH="$staged_bats/lib"' "$ROOT/grading/grade"
    assert_output 1
}
