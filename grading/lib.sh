# grading/lib.sh - shared by grading/grade and grading/class (sourced, not run).
# shellcheck shell=bash
#
# The contract with the exercise graders (grading/judge/*.bats): grading/grade exports
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

# ---- text a student controls, made safe for every format -----------------------------------
# jq: clean replaces every control character but tab and newline (C0, DEL, C1), the Unicode
# non-characters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF) and the bidirectional overrides and
# isolates (U+202A..U+202E, U+2066..U+2069) with a visible \uXXXX: nothing of it can move a
# terminal's cursor, reorder a line, start a CSV formula or break XML 1.0. (Invalid UTF-8 is
# already U+FFFD when jq reads it.) csvsafe also puts a ' before a field that a spreadsheet
# would take for a formula (= + - @ at its start).
# shellcheck disable=SC2016  # jq's own variables
JQ_CLEAN='
  def clean_hex: . as $n | [4096, 256, 16, 1] | map(($n / . | floor) % 16)
      | map("0123456789ABCDEF"[.:. + 1]) | join("");
  def clean: if type != "string" then . else
      explode | map(if (. < 32 and . != 9 and . != 10) or (. >= 127 and . < 160)
                       or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534)
                       or (. >= 8234 and . <= 8238) or (. >= 8294 and . <= 8297)
                    then ("\\u" + (if . > 65535 then "{" + (. | tostring) + "}" else (. | clean_hex) end) | explode[])
                    else . end) | flatten | implode end;
  def csvsafe: clean | if test("^[=+@-]") then "'"'"'" + . else . end;
'
# term_clean: a filter for what reaches a terminal (the graders' TAP lines, a build's errors).
term_clean() { jq -Rr --unbuffered "$JQ_CLEAN"' clean'; }

# ---- the GPU a grading may see --------------------------------------------------------------
# gpu_nodes: for the GPUs CUDA_VISIBLE_DEVICES names (every GPU when it is unset), "NODE UUID"
# lines: the device node (/dev/nvidiaN, N the GPU's minor number, read from the driver's
# /proc/driver/nvidia/gpus/*/information or GRADE_GPU_INFO) and the UUID nvidia-smi -L lists.
# Fails, printing why, when one of them cannot be matched (a MIG instance, an unknown id).
gpu_nodes() {
    local listed id line uuid minor f info="${GRADE_GPU_INFO:-/proc/driver/nvidia/gpus}"
    listed="$(nvidia-smi -L 2>/dev/null | grep '^GPU ')" || { echo "nvidia-smi -L lists no GPU"; return 1; }
    local -a ids
    if [ "${CUDA_VISIBLE_DEVICES-unset}" = unset ]; then
        mapfile -t ids < <(printf '%s\n' "$listed" | sed -n 's/^GPU \([0-9]*\):.*/\1/p')
    else
        IFS=, read -r -a ids <<<"$CUDA_VISIBLE_DEVICES"
    fi
    for id in "${ids[@]}"; do
        case "$id" in
            *[!0-9]*) line="$(printf '%s\n' "$listed" | grep -F "UUID: $id" | head -n 1)" ;;
            *) line="$(printf '%s\n' "$listed" | grep "^GPU $id:" | head -n 1)" ;;
        esac
        uuid="$(printf '%s\n' "$line" | sed -n 's/.*(UUID: \(GPU-[^)]*\)).*/\1/p')"
        [ -n "$uuid" ] || { echo "CUDA_VISIBLE_DEVICES names '$id', which is no whole GPU nvidia-smi lists (a MIG instance?)"; return 1; }
        minor=''
        for f in "$info"/*/information; do
            [ -f "$f" ] || continue
            grep -qi "UUID:[[:space:]]*$uuid" "$f" || continue
            minor="$(sed -n 's/^Device Minor:[[:space:]]*\([0-9]*\).*/\1/p' "$f")"
        done
        [ -n "$minor" ] || { echo "the driver's $info does not give the device node of $uuid"; return 1; }
        printf '/dev/nvidia%s %s\n' "$minor" "$uuid"
    done
}

# ---- cgroups ----------------------------------------------------------------------------------
# cgroup_base: where this user may make a cgroup per grading: "v2 DIR" (cgroup v2: DIR is
# SANDBOX_CGROUP_ROOT, a delegated folder, or, as root, /sys/fs/cgroup/cuda-grading) or
# "v1 PIDS_DIR MEMORY_DIR" (cgroup v1, as root), else nothing (with why on stderr).
cgroup_base() {
    local root="${SANDBOX_CGROUP_ROOT:-}" fs=/sys/fs/cgroup
    if [ -n "$root" ]; then
        if [ ! -w "$root/cgroup.procs" ] || [ ! -f "$root/cgroup.controllers" ]; then
            echo "SANDBOX_CGROUP_ROOT=$root is not a cgroup v2 folder this user may write" >&2; return 1
        fi
        echo "v2 $root"; return
    fi
    [ "$(id -u)" = 0 ] || { echo "not root, and no delegated cgroup (SANDBOX_CGROUP_ROOT)" >&2; return 1; }
    if [ -f "$fs/cgroup.controllers" ]; then
        mkdir -p "$fs/cuda-grading" 2>/dev/null
        [ -f "$fs/cuda-grading/cgroup.procs" ] || { echo "cannot make $fs/cuda-grading" >&2; return 1; }
        echo "v2 $fs/cuda-grading"; return
    fi
    if [ -f "$fs/pids/cgroup.procs" ] && [ -f "$fs/memory/cgroup.procs" ]; then
        mkdir -p "$fs/pids/cuda-grading" "$fs/memory/cuda-grading" 2>/dev/null
        if [ ! -f "$fs/pids/cuda-grading/pids.max" ] || [ ! -f "$fs/memory/cuda-grading/memory.limit_in_bytes" ]; then
            echo "cannot make a cgroup under $fs/pids and $fs/memory" >&2; return 1
        fi
        echo "v1 $fs/pids/cuda-grading $fs/memory/cuda-grading"; return
    fi
    echo "no cgroup v2 and no cgroup v1 pids and memory controllers at $fs" >&2
    return 1
}
# cgroup_make NAME PIDS MEMORY_MB: makes the grading's cgroup(s) with those limits; prints their
# folders, one a line (the SANDBOX_CGROUP of sandbox-run). Fails, saying why on stderr.
cgroup_make() {
    local base kind d c
    base="$(cgroup_base)" || return 1
    read -r kind d c <<<"$base"
    if [ "$kind" = v2 ]; then
        # the controllers must be on for the children of the base folder
        grep -qw pids "$d/cgroup.subtree_control" 2>/dev/null || {
            echo +pids >"$(dirname "$d")/cgroup.subtree_control" 2>/dev/null
            echo +pids >"$d/cgroup.subtree_control"; } 2>/dev/null
        grep -qw memory "$d/cgroup.subtree_control" 2>/dev/null || {
            echo +memory >"$(dirname "$d")/cgroup.subtree_control" 2>/dev/null
            echo +memory >"$d/cgroup.subtree_control"; } 2>/dev/null
        mkdir "$d/$1" || return 1
        { echo "$2" >"$d/$1/pids.max" && echo "$(( $3 * 1048576 ))" >"$d/$1/memory.max"; } 2>/dev/null \
            || { echo "the pids and memory controllers are not available in $d" >&2; rmdir "$d/$1"; return 1; }
        echo 0 >"$d/$1/memory.swap.max" 2>/dev/null
        echo "$d/$1"
    else
        mkdir "$d/$1" "$c/$1" || return 1
        if ! { echo "$2" >"$d/$1/pids.max" && echo "$(( $3 * 1048576 ))" >"$c/$1/memory.limit_in_bytes"; }; then
            rmdir "$d/$1" "$c/$1"; return 1
        fi
        echo "$(( $3 * 1048576 ))" >"$c/$1/memory.memsw.limit_in_bytes" 2>/dev/null
        printf '%s\n%s\n' "$d/$1" "$c/$1"
    fi
}
# cgroup_kill DIR...: ends every process in those cgroups, then removes them.
cgroup_kill() {
    local c p
    for c in "$@"; do
        [ -d "$c" ] || continue
        [ ! -f "$c/cgroup.kill" ] || echo 1 >"$c/cgroup.kill" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            p="$(cat "$c/cgroup.procs" 2>/dev/null)"
            [ -n "$p" ] || break
            # shellcheck disable=SC2086  # one pid a word
            kill -KILL $p 2>/dev/null
            sleep 0.1
        done
        rmdir "$c" 2>/dev/null
    done
    return 0
}

# ---- not root: subordinate ids --------------------------------------------------------------
# userns_ids: "SUBUID SUBGID COUNT" of this user's first subordinate ranges (/etc/subuid and
# /etc/subgid, by name or id; COUNT at most 1000), where newuidmap, newgidmap and unshare's
# --map-users are there; fails, saying why on stderr, where not.
userns_ids() {
    local me name u g n1 n2
    me="$(id -u)" name="$(id -un 2>/dev/null)"
    if ! command -v newuidmap >/dev/null 2>&1 || ! command -v newgidmap >/dev/null 2>&1; then
        echo "newuidmap and newgidmap are not installed (Debian: apt-get install uidmap)" >&2; return 1
    fi
    unshare --help 2>/dev/null | grep -q -- --map-users || { echo "this unshare has no --map-users (util-linux 2.38 or newer)" >&2; return 1; }
    read -r u n1 < <(awk -F: -v a="$me" -v b="$name" '$1 == a || $1 == b { print $2, $3; exit }' /etc/subuid 2>/dev/null)
    read -r g n2 < <(awk -F: -v a="$(id -g)" -v b="$(id -gn 2>/dev/null)" -v c="$me" -v d="$name" \
        '$1 == a || $1 == b || $1 == c || $1 == d { print $2, $3; exit }' /etc/subgid 2>/dev/null)
    if [ -z "${u:-}" ] || [ -z "${g:-}" ]; then
        echo "no subordinate ids for $name in /etc/subuid and /etc/subgid (usermod --add-subuids/--add-subgids)" >&2; return 1
    fi
    n1=$(( n1 < n2 ? n1 : n2 )); n1=$(( n1 < 1000 ? n1 : 1000 ))
    echo "$u $g $n1"
}
# userns_run CMD...: CMD as 0 of the user namespace of SANDBOX_USERNS (to remove or hand back
# what the sandbox's user wrote); CMD as it is where there is none.
userns_run() {
    if [ "$(id -u)" != 0 ] && [ -n "${SANDBOX_USERNS:-}" ]; then
        local u g n
        read -r u g n <<<"$SANDBOX_USERNS"
        unshare --map-user=0 --map-group=0 --map-users="$u,1000,$n" --map-groups="$g,1000,$n" -- "$@"
    else
        "$@"
    fi
}
