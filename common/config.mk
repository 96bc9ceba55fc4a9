# common/config.mk - the toolchain and the variables a user may override.
# Included by the top-level Makefile and by common/lesson.mk.
#
#   CUDA_PATH   toolkit root (default: found from the nvcc on PATH, else /usr/local/cuda)
#   NVCC        the CUDA compiler (default: $(CUDA_PATH)/bin/nvcc, or nvcc on PATH)
#   CC          the host C compiler (default: cc)
#   ARCH        GPU architectures, e.g. ARCH=90 or ARCH="80 90" or ARCH=sm_90
#               (default: the visible GPUs' that this nvcc can build, nvcc --list-gpu-code;
#               with none visible, every architecture of 75 80 86 89 90 100 120 it can build;
#               a GPU it cannot build for stops the build saying what to install)
#               PTX for the last one is always embedded so newer GPUs can JIT it.
#               ARCH=compute_75 builds PTX only, no machine code (run through the driver's JIT)
#   ARCH_ALSO   machine code built beside a default ARCH (default 75, Colab's T4, where this
#               nvcc builds it); empty when ARCH is given; ARCH_ALSO= leaves it out
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

# Default architecture: what nvidia-smi reports for the visible GPUs ("9.0" -> 90) that the
# installed nvcc can build SASS for (nvcc --list-gpu-code); with no GPU visible, each
# architecture of ARCH_CANDIDATES that this nvcc can build (CUDA 12.0 to 12.7 stop at 90, 12.8
# adds 100 and 120; CUDA 13 starts at 75). Computed once, exported. A GPU this nvcc cannot
# build for (a V100, sm_70, with CUDA 13; an RTX 50, sm_120, with CUDA 12.7 or older) stops the
# build with what to do (ARCH_UNSUPPORTED_MESSAGE below); where another visible GPU can be
# built for, the build is for that one and a note names the other.
ARCH_CANDIDATES := 75 80 86 89 90 100 120
ifeq ($(origin ARCH),undefined)
  GPU_ARCHS := $(strip $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                 | grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sort -n -u | tr '\n' ' '))
  NVCC_ARCHS := $(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null)))
  ifneq ($(GPU_ARCHS),)
    # an nvcc that lists nothing (missing, or older than --list-gpu-code): the GPU's, unchecked
    ARCH := $(if $(NVCC_ARCHS),$(filter $(NVCC_ARCHS),$(GPU_ARCHS)),$(GPU_ARCHS))
    ARCH_UNSUPPORTED := $(if $(NVCC_ARCHS),$(filter-out $(NVCC_ARCHS),$(GPU_ARCHS)))
  else
    ARCH := $(or $(filter $(NVCC_ARCHS),$(ARCH_CANDIDATES)),$(ARCH_CANDIDATES))
  endif
  # the card most students meet (Colab's T4) runs the default build too; not when the build
  # stops (no ARCH) or nvcc cannot build it
  ARCH_ALSO ?= $(if $(strip $(ARCH)),$(filter 75,$(NVCC_ARCHS)))
  ifneq ($(ARCH_UNSUPPORTED),)
    NVCC_RELEASE := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
    NVCC_OLDEST := $(shell printf '%s\n' $(NVCC_ARCHS) | sort -n | head -1)
    ARCH_NVCC_RANGE := sm_$(NVCC_OLDEST) to sm_$(shell printf '%s\n' $(NVCC_ARCHS) | sort -n | tail -1)
    # older than the oldest this nvcc builds: a newer toolkit dropped it; else a newer GPU
    ARCH_TOO_OLD := $(shell for a in $(ARCH_UNSUPPORTED); do [ $$a -lt $(NVCC_OLDEST) ] && echo $$a; done)
    ifneq ($(ARCH_TOO_OLD),)
      ifeq ($(shell [ $(NVCC_OLDEST) -ge 75 ] && echo 13),13)
        ARCH_WHAT_TO_DO := CUDA 13 builds for sm_75 (Turing) and newer only: this GPU needs a CUDA 12.x \
toolkit (12.x builds for sm_50 to sm_90). Install one beside this one (NVIDIA's cuda-toolkit-12-9 \
package, or your distribution's nvidia-cuda-toolkit 12.x) and build with \
make CUDA_PATH=/path/to/cuda-12; the driver that runs this GPU runs what CUDA 12 builds.
      else
        ARCH_WHAT_TO_DO := This GPU is older than any this toolkit supports: install an older CUDA \
toolkit that still builds for it and build with make CUDA_PATH=/path/to/it.
      endif
    else
      ARCH_WHAT_TO_DO := This GPU is newer than this nvcc: install the CUDA toolkit your driver \
supports (nvidia-smi prints it as "CUDA Version"; sm_100 and sm_120 need CUDA 12.8 or newer) \
and build with make CUDA_PATH=/path/to/it, or put its bin folder first on PATH.
    endif
    ifeq ($(strip $(ARCH)),)
      define ARCH_UNSUPPORTED_MESSAGE
The GPU here is $(addprefix sm_,$(ARCH_UNSUPPORTED)) (nvidia-smi), and this nvcc ($(NVCC), CUDA $(NVCC_RELEASE))
cannot build for it: it builds for $(ARCH_NVCC_RANGE) (nvcc --list-gpu-code).
$(ARCH_WHAT_TO_DO)
(ARCH=NN builds for another architecture anyway)
endef
    else
      ARCH_UNSUPPORTED_MESSAGE :=
      $(info note: this nvcc (CUDA $(NVCC_RELEASE)) cannot build for the visible $(addprefix sm_,$(ARCH_UNSUPPORTED)) GPU: building for $(addprefix sm_,$(ARCH)) only, so the programs run on that GPU and not on the other (pick it with --device or CUDA_VISIBLE_DEVICES). $(ARCH_WHAT_TO_DO))
    endif
  endif
endif
ifneq ($(strip $(ARCH_UNSUPPORTED_MESSAGE)),)
  ifneq ($(filter-out clean help,$(or $(MAKECMDGOALS),all)),)
    $(error $(ARCH_UNSUPPORTED_MESSAGE))
  endif
endif
export ARCH ARCH_ALSO
ARCH_NUMS := $(patsubst sm_%,%,$(patsubst compute_%,%,$(ARCH)))
# compute_NN in ARCH: PTX only for it; NN or sm_NN: machine code (SASS)
ARCH_PTX_ONLY := $(patsubst compute_%,%,$(filter compute_%,$(ARCH)))
ARCH_SASS := $(filter-out $(ARCH_PTX_ONLY),$(ARCH_NUMS))
ARCH_SASS_ALSO := $(filter-out $(ARCH_NUMS),$(ARCH_ALSO))

# ARCH given by hand (make ARCH=52, ARCH=foo): checked against nvcc --list-gpu-code before
# anything is built (an architecture-specific 90a or 100f as its 90 or 100), rather than every
# file compiled again for nvcc to stop at the first .cu. Not for clean, help, doctor (which says
# what each GPU needs), format.
ifneq ($(filter-out clean help doctor format format-check,$(or $(MAKECMDGOALS),all)),)
  ARCH_NVCC_LIST := $(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null)))
  ifneq ($(ARCH_NVCC_LIST),)
    ARCH_NOT_BUILDABLE := $(strip $(foreach a,$(ARCH_NUMS),$(if $(filter $(ARCH_NVCC_LIST),$(patsubst %a,%,$(patsubst %f,%,$(a)))),,$(a))))
    ifeq ($(strip $(ARCH_NUMS)),)
      $(error ARCH is empty: give the architectures to build for (make ARCH=90, or ARCH="80 90"), or leave ARCH out to build for the GPUs here)
    endif
    ifneq ($(ARCH_NOT_BUILDABLE),)
      $(error ARCH=$(ARCH): this nvcc ($(NVCC)) cannot build for $(ARCH_NOT_BUILDABLE); it builds for $(ARCH_NVCC_LIST) (nvcc --list-gpu-code). Give ARCH some of those (make ARCH=90, or ARCH="80 90"), or leave ARCH out to build for the GPUs here (make doctor says what each GPU needs))
    endif
  endif
endif
GENCODE := $(strip $(foreach a,$(ARCH_SASS_ALSO) $(ARCH_SASS),-gencode arch=compute_$a,code=sm_$a) \
           $(foreach a,$(filter-out $(lastword $(ARCH_NUMS)),$(ARCH_PTX_ONLY)),-gencode arch=compute_$a,code=compute_$a) \
           -gencode arch=compute_$(lastword $(ARCH_NUMS)),code=compute_$(lastword $(ARCH_NUMS)))

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
put its bin directory on PATH or run make with CUDA_PATH=/path/to/cuda (or NVCC=/path/to/nvcc)
endef

# make exits 2 whenever a command fails, whatever its status: after TOOL ran, a failure is said
# with the tool's own status (1 failed or something to fix, 77 cannot run here) and the command
# that gives it to a script. Used as: TOOL ...; $(call tool_status,make doctor,tools/doctor)
tool_status = rc=$$?; [ $$rc -eq 0 ] || echo "$(1): $(2) exited $$rc (make itself exits 2 for any failure: a script that needs 0, 1 or 77 runs $(2) directly)" >&2; exit $$rc
