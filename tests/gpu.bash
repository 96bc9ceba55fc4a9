# tests/gpu.bash - is a GPU usable here, and where is the CUDA toolkit (and its stub driver)?
# Sourced by test_helper.bash (require_gpu, stub_driver_dir) and by tests/run (which runs the
# files that use the GPU one at a time, and builds the shims once): plain bash, no bats needed.

# A GPU is usable when nvidia-smi lists one and CUDA_VISIBLE_DEVICES does not hide them all.
# Every GPU test asks (0.03 s each on the H100s here, whose driver is kept loaded by the
# persistence daemon; nvidia-smi starts the driver itself where none is): tests/run asks once
# and exports the answer in CUDA_LESSONS_GPU_LISTED ("yes PATH" or "no PATH", PATH the
# nvidia-smi asked), which counts only for that same nvidia-smi (a test's stand-in on PATH is
# asked itself).
gpu_listed() {
    local smi
    smi="$(command -v nvidia-smi)" || return 1
    case "${CUDA_LESSONS_GPU_LISTED:-}" in
        "yes $smi") return 0 ;;
        "no $smi") return 1 ;;
    esac
    smi_lists_gpu
}

# nvidia-smi -L lists a GPU. (grep -c reads the whole list: grep -q would stop at the first
# line, and nvidia-smi, writing more, could end on SIGPIPE and fail the pipeline under pipefail)
smi_lists_gpu() {
    [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -gt 0 ]
}

# The answer of gpu_listed, for CUDA_LESSONS_GPU_LISTED.
gpu_listed_answer() {
    local smi
    smi="$(command -v nvidia-smi)" || return 0
    if smi_lists_gpu; then echo "yes $smi"; else echo "no $smi"; fi
}

# Why no GPU is usable here; nothing when one is.
gpu_reason() {
    if ! command -v nvidia-smi >/dev/null 2>&1; then
        echo "no GPU here: nvidia-smi not found (no NVIDIA driver)"
    elif ! gpu_listed; then
        echo "no GPU here: nvidia-smi lists no GPU"
    elif [ "${CUDA_VISIBLE_DEVICES-unset}" = "" ]; then
        echo "no GPU here: CUDA_VISIBLE_DEVICES is set empty"
    fi
}

# The CUDA toolkit in use: the folder above the bin/ of the nvcc on PATH (or /usr/local/cuda).
cuda_root() {
    dirname "$(dirname "$(readlink -f "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")"
}

# The toolkit's stub libcuda.so (it lets programs link; it cannot drive a GPU): its path, or
# status 1 where there is none. test_helper's stub_driver_dir and tests/run's shims use it.
toolkit_stub() {
    local cuda stub
    cuda="$(cuda_root)"
    for stub in "$cuda/lib64/stubs/libcuda.so" "$cuda/targets/x86_64-linux/lib/stubs/libcuda.so" \
                /usr/local/cuda/lib64/stubs/libcuda.so; do
        [ -f "$stub" ] && { echo "$stub"; return 0; }
    done
    return 1
}
