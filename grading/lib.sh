# grading/lib.sh - shared by grading/grade and grading/class (sourced, not run).
# shellcheck shell=bash
#
# The contract with the exercise graders (tests/exercises/*.bats): grading/grade exports
#   SANDBOX        the path of grading/sandbox-run: every program built from a student's code is
#                  run as  run "$SANDBOX" "$EXERCISE_BIN/name" args...  (see its header)
#   EXERCISE_BIN   the folder of the programs under test (built from the student's files)
#   REFERENCE_BIN  the teacher's own build of the reference solutions (NN_name/build/solutions),
#                  outside the student's reach; empty where there is none (a student's tree)
# and copies from a submission only the files listed in NN_name/exercises/NAME/files (one plain
# file name per line; without that file: NAME/*.c *.cu *.h *.cuh).

# Why no GPU is usable here, or nothing when one is. Same rule as tests/test_helper.bash's
# require_gpu, plus: every id in CUDA_VISIBLE_DEVICES must name a GPU that nvidia-smi lists.
gpu_reason() {
    if ! command -v nvidia-smi >/dev/null 2>&1; then
        echo "no GPU here: nvidia-smi not found (no NVIDIA driver)"; return
    fi
    local listed count
    listed="$(nvidia-smi -L 2>/dev/null | grep '^GPU ')"
    if [ -z "$listed" ]; then
        echo "no GPU here: nvidia-smi lists no GPU"; return
    fi
    if [ "${CUDA_VISIBLE_DEVICES-unset}" = "" ]; then
        echo "no GPU here: CUDA_VISIBLE_DEVICES is set empty"; return
    fi
    count="$(printf '%s\n' "$listed" | wc -l)"
    if [ "${CUDA_VISIBLE_DEVICES-unset}" != unset ]; then
        local id
        for id in ${CUDA_VISIBLE_DEVICES//,/ }; do
            case "$id" in
                *[!0-9]*) printf '%s\n' "$listed" | grep -qF "$id" \
                              || { echo "no GPU here: CUDA_VISIBLE_DEVICES names $id, which nvidia-smi does not list"; return; } ;;
                *) [ "$id" -lt "$count" ] \
                       || { echo "no GPU here: CUDA_VISIBLE_DEVICES names GPU $id, and nvidia-smi lists $count"; return; } ;;
            esac
        done
    fi
}

# The lessons of a tree (folders NN_name with a Makefile), in order.
tree_lessons() {
    local d
    for d in "$1"/[0-9][0-9]_*/; do
        [ -f "$d/Makefile" ] && basename "$d"
    done
}

# "exercise points" lines of a lesson's points file, comments and blank lines dropped.
points_lines() {
    [ -f "$1/exercises/points" ] || return 0
    sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$1/exercises/points" | grep -v '^$' || true
}

# CSV field: quoted, inner quotes doubled, newlines flattened.
csv_field() {
    local s="${1//$'\n'/ }"
    s="${s//\"/\"\"}"
    printf '"%s"' "$s"
}
