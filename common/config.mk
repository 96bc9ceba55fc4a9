# common/config.mk - the toolchain and the variables a user may override.
# Included by the top-level Makefile and by common/lesson.mk.
#
#   CUDA_PATH   toolkit root (default: found from the nvcc on PATH, else /usr/local/cuda)
#   NVCC        the CUDA compiler (default: $(CUDA_PATH)/bin/nvcc, or nvcc on PATH)
#   CC          the host C compiler (default: cc)
#   ARCH        GPU architectures, e.g. ARCH=90 or ARCH="80 90" or ARCH=sm_90
#               (default: the visible GPU's; with none, every architecture of
#               75 80 86 89 90 100 120 that this nvcc can build: nvcc --list-gpu-code)
#               PTX for the last one is always embedded so newer GPUs can JIT it.
#   CFLAGS      host C optimisation/extra flags (default -O2); also given to the link
#   LDFLAGS     extra link flags (-L..., -Wl,...), given to the link through nvcc
#   NVCCFLAGS   extra nvcc flags (default -O2)
#   dbg=1       debug build: -O0 -g for host code, -G for device code (replaces the -O2 defaults)
#   HOST_SANITIZE=1   the host C/C++ code built and linked with AddressSanitizer and
#               UndefinedBehaviorSanitizer, into build-hostsan/ (the normal build/ stays)

ifdef CUDA_PATH
  NVCC ?= $(CUDA_PATH)/bin/nvcc
else
  NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
  CUDA_PATH := $(or $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null))),/usr/local/cuda)
endif
NVCC_FOUND := $(shell command -v $(NVCC) 2>/dev/null)

# Default architecture: what nvidia-smi reports for the visible GPUs ("9.0" -> 90), else
# each architecture of ARCH_CANDIDATES that the installed nvcc can build SASS for (CUDA 12.0
# to 12.7 stop at 90, 12.8 adds 100 and 120; CUDA 13 starts at 75). Computed once, exported.
ARCH_CANDIDATES := 75 80 86 89 90 100 120
ifeq ($(origin ARCH),undefined)
  ARCH := $(strip $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
            | grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sort -u | tr '\n' ' '))
  ifeq ($(strip $(ARCH)),)
    NVCC_ARCHS := $(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null)))
    ARCH := $(or $(filter $(NVCC_ARCHS),$(ARCH_CANDIDATES)),$(ARCH_CANDIDATES))
  endif
endif
export ARCH
ARCH_NUMS := $(patsubst sm_%,%,$(patsubst compute_%,%,$(ARCH)))
GENCODE := $(foreach a,$(ARCH_NUMS),-gencode arch=compute_$a,code=sm_$a) \
           -gencode arch=compute_$(lastword $(ARCH_NUMS)),code=compute_$(lastword $(ARCH_NUMS))

# dbg=1 replaces the default -O2 (nvcc warns when -O2 and -O0 meet on one command line).
ifdef dbg
  CFLAGS ?=
  NVCCFLAGS ?=
  DBG_CFLAGS := -O0 -g
  DBG_NVCCFLAGS := -O0 -g -G
else
  CFLAGS ?= -O2
  NVCCFLAGS ?= -O2
endif

# HOST_SANITIZE=1: AddressSanitizer + UndefinedBehaviorSanitizer for the host code (C files,
# the host side of .cu files, the link). For the command-line and no-GPU paths; on a GPU,
# compute-sanitizer (make sanitize) is the tool for the device side.
ifdef HOST_SANITIZE
  SANITIZE_CFLAGS := -fsanitize=address -fsanitize=undefined -fno-sanitize-recover=all \
                     -fno-omit-frame-pointer
endif

# nvcc hands a flag to the host compiler with -Xcompiler, to the linker with -Xlinker, and
# splits both at commas: -Wl,a,b becomes -Xlinker a,b; -fsanitize=a,b one flag per name.
comma := ,
nvcc_host = $(foreach f,$(1),$(if $(filter -Wl$(comma)%,$(f)),-Xlinker $(patsubst -Wl$(comma)%,%,$(f)),$(if $(filter -fsanitize=%,$(f)),$(foreach n,$(subst $(comma), ,$(patsubst -fsanitize=%,%,$(f))),-Xcompiler -fsanitize=$(n)),-Xcompiler $(f))))

define NO_NVCC_MESSAGE
nvcc not found (looked for '$(NVCC)').
Install the CUDA Toolkit 12 or 13 (https://developer.nvidia.com/cuda-downloads; on Debian or
Ubuntu: apt-get install nvidia-cuda-toolkit, or NVIDIA's cuda-toolkit package), then either
put its bin directory on PATH or run make with CUDA_PATH=/path/to/cuda (or NVCC=/path/to/nvcc).
endef
