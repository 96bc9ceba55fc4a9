# common/config.mk - the toolchain and the variables a user may override.
# Included by the top-level Makefile and by common/lesson.mk.
#
#   CUDA_PATH   toolkit root (default: found from the nvcc on PATH, else /usr/local/cuda)
#   NVCC        the CUDA compiler (default: $(CUDA_PATH)/bin/nvcc, or nvcc on PATH)
#   CC          the host C compiler (default: cc)
#   ARCH        GPU architectures, e.g. ARCH=90 or ARCH="80 90" or ARCH=sm_90
#               (default: the visible GPU's; with none, a fixed list from 75 to 120)
#               PTX for the last one is always embedded so newer GPUs can JIT it.
#   CFLAGS      host C optimisation/extra flags (default -O2)
#   NVCCFLAGS   extra nvcc flags (default -O2)
#   dbg=1       debug build: -O0 -g for host code, -G for device code

ifdef CUDA_PATH
  NVCC ?= $(CUDA_PATH)/bin/nvcc
else
  NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
  CUDA_PATH := $(or $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null))),/usr/local/cuda)
endif
NVCC_FOUND := $(shell command -v $(NVCC) 2>/dev/null)

# Default architecture: what nvidia-smi reports for the visible GPUs ("9.0" -> 90), else a
# list that covers every architecture CUDA 13 supports. Computed once, then exported.
ifeq ($(origin ARCH),undefined)
  ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
            | grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sort -u | tr '\n' ' ')
  ARCH := $(or $(strip $(ARCH)),75 80 86 89 90 100 120)
endif
export ARCH
ARCH_NUMS := $(patsubst sm_%,%,$(patsubst compute_%,%,$(ARCH)))
GENCODE := $(foreach a,$(ARCH_NUMS),-gencode arch=compute_$a,code=sm_$a) \
           -gencode arch=compute_$(lastword $(ARCH_NUMS)),code=compute_$(lastword $(ARCH_NUMS))

CFLAGS ?= -O2
NVCCFLAGS ?= -O2
ifdef dbg
  DBG_CFLAGS := -O0 -g
  DBG_NVCCFLAGS := -O0 -g -G
endif

define NO_NVCC_MESSAGE
nvcc not found (looked for '$(NVCC)').
Install the CUDA Toolkit 12 or 13 (https://developer.nvidia.com/cuda-downloads; on Debian or
Ubuntu: apt-get install nvidia-cuda-toolkit, or NVIDIA's cuda-toolkit package), then either
put its bin directory on PATH or run make with CUDA_PATH=/path/to/cuda (or NVCC=/path/to/nvcc).
endef
