# The CUDA Runtime API vs Driver API lesson suite.
#   make         build every lesson (safe with -j)
#   make run     build, then run every lesson in order and summarise
#   make test    build, then run the bats test suite (tests/)
#   make grade   grade every lesson's exercises (points; TEACHING.md)
#   make clean   remove all build output
#   make help    this list, with the variables
include common/config.mk

LESSONS := $(patsubst %/Makefile,%,$(sort $(wildcard [0-9][0-9]_*/Makefile)))
BATS ?= bats
BATS_LIB_PATH ?= /usr/lib/bats
export BATS_LIB_PATH

.PHONY: all run test grade clean help $(LESSONS)
all: $(LESSONS)
$(LESSONS):
	@$(MAKE) --no-print-directory -C $@ all

# Each lesson runs even when the one before it failed or could not run; the summary says
# which. Exit status: 0 unless a lesson failed (exit 77, "cannot run here", is not a failure).
run: all
	@failed=0; summary=''; \
	for d in $(LESSONS); do \
	  echo; echo "==================== $$d ===================="; \
	  ./$$d/build/$${d#*_} $(ARGS); rc=$$?; \
	  case $$rc in \
	    0) what='ran: all checks passed' ;; \
	    77) what='could not run here (no usable GPU or driver)' ;; \
	    *) what='FAILED'; failed=1 ;; \
	  esac; \
	  summary="$$summary$$(printf '%-22s %s (exit %d)' $$d "$$what" $$rc)\n"; \
	done; \
	echo; echo '==================== summary ===================='; printf "$$summary"; \
	exit $$failed

test: all
	@sh tests/ensure-bats '$(BATS)'
	$(BATS) $(BATS_FLAGS) tests/

# Grade every lesson's exercises at once: a table of points per exercise and the total
# (grading/grade; TEACHING.md). Exit 77 without a usable GPU: nothing counts unless it ran.
grade:
	@grading/grade $(if $(SOLUTIONS),--solutions) $(if $(SUBMISSION),--submission '$(SUBMISSION)') \
	  $(if $(OUT),--out '$(OUT)') $(if $(FORMAT),--format '$(FORMAT)') $(GRADE_ARGS)

clean:
	@for d in $(LESSONS); do $(MAKE) --no-print-directory -C $$d clean; done

help:
	@echo 'Targets:'
	@echo '  make              build every lesson and its exercises (safe with -j)'
	@echo '  make run          build and run every lesson in order, then a summary line per lesson'
	@echo '  make test         build and run the bats test suite (REQUIRE_GPU=1: fail, not skip, without a GPU)'
	@echo '  make grade        grade every lesson'"'"'s exercises: points per exercise and the total; exit 77 without a GPU'
	@echo '                    (SOLUTIONS=1, SUBMISSION=dir, OUT=dir FORMAT=all, GRADE_ARGS=...; see TEACHING.md)'
	@echo '  make clean        remove all build output'
	@echo '  make -C 01_hello_runtime run|check|clean   one lesson; check grades its exercises'
	@echo 'Variables (make VAR=value):'
	@echo '  CUDA_PATH=$(CUDA_PATH)'
	@echo '  NVCC=$(NVCC)'
	@echo '  CC=$(CC)'
	@echo '  ARCH=$(ARCH)   (the visible GPU, else a fixed list; PTX for the last)'
	@echo '  CFLAGS=$(CFLAGS)  NVCCFLAGS=$(NVCCFLAGS)  dbg=1 for a debug build'
	@echo '  ARGS="--device 1"   options passed to every lesson by make run'
	@echo '  BATS=$(BATS)  BATS_LIB_PATH=$(BATS_LIB_PATH)  BATS_FLAGS=   for make test'
