# tests/gpu.bash - is a GPU usable here? Sourced by test_helper.bash (require_gpu) and by
# tests/run (which runs the files that use the GPU one at a time): plain bash, no bats needed.

# A GPU is usable when nvidia-smi lists one and CUDA_VISIBLE_DEVICES does not hide them all.
gpu_listed() {
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '
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
