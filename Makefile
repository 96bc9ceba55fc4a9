# The CUDA Runtime API vs Driver API lesson suite.
#   make         build every lesson (safe with -j)
#   make run     build, then run every lesson in order and summarise
#   make test    build, then run the bats test suite (tests/; TESTS=tests/x.bats for some;
#                ALL_TESTS=1 with the maintainers' files too, as CI)
#   make grade   grade every lesson's exercises (points; TEACHING.md)
#   make clean   remove all build output
#   make check   the same as make grade (make check in a lesson grades that lesson's)
#   make help    this list, with the variables

# make -f path/to/Makefile GOAL from another folder: the suite's paths are its own folder's, so
# the make goes there, with the same goals and variables.
SUITE_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ifeq ($(wildcard common/config.mk),)
.DEFAULT_GOAL := all
.PHONY: all $(MAKECMDGOALS)
all $(filter-out all,$(MAKECMDGOALS)):
	@echo "make: the suite's Makefile works in its own folder: make -C $(SUITE_DIR) $@"
	@$(MAKE) --no-print-directory -C '$(SUITE_DIR)' $@
else
include common/config.mk

LESSONS := $(patsubst %/Makefile,%,$(sort $(wildcard [0-9][0-9]_*/Makefile)))

# Without nvcc nothing builds: said once, here, rather than by each lesson's make.
ifeq ($(NVCC_FOUND),)
ifneq ($(filter all programs program build-quietly run test $(LESSONS) $(LESSONS:%=program-%),$(or $(MAKECMDGOALS),all)),)
$(error $(NO_NVCC_MESSAGE))
endif
endif
BATS ?= bats
BATS_LIB_PATH ?= /usr/lib/bats
export BATS_LIB_PATH

# Where lesson $(1) builds: NN_name/build; with BUILD=dir on the command line, NN_name/dir, or
# for an absolute path (a tree you cannot write, a shared lab copy) dir/NN_name: each lesson its
# own folder there, passed to its make as BUILD.
build_of = $(if $(filter /%,$(BUILD)),$(BUILD)/$(1),$(1)/$(or $(BUILD),build))
sub_build = $(if $(filter /%,$(BUILD)),BUILD='$(BUILD)/$(1)')
# A shell snippet: ro= the lessons whose build folder this user cannot write (or make), built=no
# when a lesson's program is not built.
WRITABLE_CHECK = ro=''; built=yes; \
  for d in $(LESSONS); do b="$(call build_of,$$d)"; p="$$b"; \
    while [ ! -e "$$p" ]; do p=$$(dirname "$$p"); done; \
    [ -w "$$p" ] || ro="$$ro $$d"; [ -x "$$b/$${d\#*_}" ] || built=no; done
# ... and what it says when a tree cannot be built (one line, exit 2).
READ_ONLY_STOP = if [ -n "$$ro" ] && [ $$built = no ]; then \
  echo "make: this tree is read-only for you (the lessons' build folders cannot be written: a shared copy?) and not built: build into a folder of yours, make $(or $(MAKECMDGOALS),all) BUILD=\$$HOME/cuda-lessons-build (an absolute path), or copy the tree (cp -r '$(CURDIR)' ~/cuda-lessons) and make there"; exit 2; fi

.PHONY: all programs program run test grade check clean help doctor format format-check notebooks slides run-notebooks $(LESSONS) $(LESSONS:%=program-%) writable
all: $(LESSONS)
# (EXERCISES_MAY_FAIL: a student's exercise that does not build yet stops no lesson and no test:
# one line names it, and make check shows the compiler's message; common/lesson.mk. make run
# gives EXERCISES_MAY_FAIL=run: the line then says the lesson runs all the same.)
# In a tree this user cannot write, a built tree is left as it is (nothing to build, and nothing
# may be written), an unbuilt one stops with one line saying what to do.
writable:
	@$(WRITABLE_CHECK); $(READ_ONLY_STOP); \
	[ -z "$$ro" ] || echo "make: this tree is read-only for you, and every lesson is built: nothing is built again (make run runs them)"
$(LESSONS): writable
	@$(WRITABLE_CHECK); [ -n "$$ro" ] || \
	$(MAKE) --no-print-directory -C $@ all EXERCISES_MAY_FAIL=$(or $(EXERCISES_MAY_FAIL),1) $(call sub_build,$@)

# The lesson programs only, not the exercises (CI's HOST_SANITIZE=1 build uses it).
programs: $(LESSONS:%=program-%)
program: programs
$(LESSONS:%=program-%):
	@$(MAKE) --no-print-directory -C $(@:program-%=%) program $(call sub_build,$(@:program-%=%))

# A first build is about 200 nvcc and gcc commands: run and test build with one job per CPU
# (unless make was given -j itself) and quietly (errors and warnings still show), a line per file
# as it is built (PROGRESS=1), so that the first thing a student sees is not minutes of compiler
# lines, nor a silence.
NPROC := $(shell nproc 2>/dev/null || echo 2)
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
.PHONY: build-quietly
build-quietly:
	@$(WRITABLE_CHECK); $(READ_ONLY_STOP); [ -z "$$ro" ] || exit 0; \
	first=no; for d in $(LESSONS); do [ -x "$(call build_of,$$d)/$${d#*_}" ] || first=yes; done; \
	if [ $$first = yes ]; then \
	  echo "building the lessons and their exercises ($(if $(BUILD_JOBS),$(NPROC) jobs at once,make's -j); a line per file, errors and warnings in full): a first build takes 20-40 s on 2 cores ..."; \
	fi; \
	start=$$(date +%s); \
	$(MAKE) -s --no-print-directory $(BUILD_JOBS) all PROGRESS=1 $(if $(filter run,$(MAKECMDGOALS)),EXERCISES_MAY_FAIL=run) || exit 1; \
	[ $$first = no ] || echo "built in $$(( $$(date +%s) - start )) s"

# Each lesson runs even when the one before it failed or could not run; the summary says
# which. Exit status: 0 unless a lesson failed (exit 77, "cannot run here", is not a failure).
# ARGS go to every lesson: an option only one lesson has is refused by the others (exit 2), and
# the summary says so. An exercise that does not build yet is named again in the summary.
run: build-quietly
	@failed=0; summary=''; \
	for d in $(LESSONS); do \
	  echo; echo "==================== $$d ===================="; \
	  b="$(call build_of,$$d)"; \
	  case "$$b" in /*) ;; *) b="./$$b" ;; esac; \
	  "$$b/$${d#*_}" $(ARGS); rc=$$?; \
	  case $$rc in \
	    0) what='ran: all checks passed' ;; \
	    77) what='could not run here (no usable GPU or driver)' ;; \
	    2) what=$(if $(ARGS),'did not take ARGS=$(subst ','\'',$(ARGS)) (its usage above: an option of another lesson? make -C '$$d' run ARGS=... runs one lesson)','FAILED: a bad command line'); failed=1 ;; \
	    *) what='FAILED'; failed=1 ;; \
	  esac; \
	  summary="$$summary$$(printf '%-22s %s (exit %d)' $$d "$$what" $$rc)\n"; \
	  if [ -s "$$b/exercises.unbuilt" ]; then \
	    summary="$$summary$$(printf '%-22s the exercise(s) %s do not build yet (make -C %s check shows why)' '' "$$(cat "$$b/exercises.unbuilt")" $$d)\n"; \
	  fi; \
	done; \
	echo; echo '==================== summary ===================='; printf "$$summary"; \
	exit $$failed

# The tests run make themselves (in copies of the tree): this make's own flags (-j, -s, ...)
# must not reach those builds, so bats starts without MAKEFLAGS and friends. tests/run runs
# the files several at a time (TEST_JOBS=N, default nproc+1; where a GPU is usable the files
# that use it run after the others, one at a time) and prints their output in order, as one run.
# ALL_TESTS=1 adds the maintainers' files, which test the suite's own machinery (the sandbox,
# the graders' object check, the grading scripts, a clean build in a copy, the layout; tests/run
# names them; make passes a variable set on its command line on to tests/run in the environment):
# what CI runs, about six times as long.
TESTS ?= tests/
# Where the system's bats will not do (too old, no libraries), tests/ensure-bats stages a copy
# (tests/stage-bats) and tests/run takes that one.
test: build-quietly
	@sh tests/ensure-bats '$(BATS)' >/dev/null
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEFILES -u MAKEOVERRIDES bash tests/run '$(BATS)' $(BATS_FLAGS) -- $(TESTS)

# Grade every lesson's exercises at once: a table of points per exercise and the total
# (grading/grade; TEACHING.md). Exit 77 without a usable GPU: nothing counts unless it ran.
check: grade
grade:
	@grading/grade $(if $(SOLUTIONS),--solutions) $(if $(SUBMISSION),--submission '$(SUBMISSION)') \
	  $(if $(OUT),--out '$(OUT)') $(if $(FORMAT),--format '$(FORMAT)') $(GRADE_ARGS); \
	$(call tool_status,make grade,grading/grade)

clean:
	@for d in $(LESSONS); do $(MAKE) --no-print-directory -C $$d clean $(if $(filter /%,$(BUILD)),BUILD="$(BUILD)/$$d"); done

# The house layout (.clang-format, clang-format 14 or newer): make format rewrites every C,
# CUDA and header file of the suite in place; make format-check only names the files it would
# change, and fails if there is one (CI runs it through tests/code.bats). One clang-format reads
# every file (--dry-run: 0.5 s of CPU for the 353 files, where one process a file took 10 s).
CLANG_FORMAT ?= clang-format
FORMAT_FILES = find . -name .git -prune -o -name build -prune -o -name build-hostsan -prune -o -name build-ptx75 -prune \
  -o -name .gpu -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print
format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "make format: $(CLANG_FORMAT) not found (Debian: apt-get install clang-format)" >&2; exit 2; }
	@$(FORMAT_FILES) | LC_ALL=C sort | tr '\n' '\0' | xargs -0 $(CLANG_FORMAT) -i --style=file
format-check:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "make format-check: $(CLANG_FORMAT) not found (Debian: apt-get install clang-format)" >&2; exit 2; }
	@out=$$($(FORMAT_FILES) | LC_ALL=C sort | tr '\n' '\0' \
	  | xargs -0 -r $(CLANG_FORMAT) --style=file --dry-run --Werror --ferror-limit=1 2>&1); rc=$$?; \
	bad=$$(printf '%s\n' "$$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | uniq); \
	if [ -n "$$bad" ]; then echo "not formatted as .clang-format says (make format fixes them):"; echo "$$bad"; exit 1; fi; \
	if [ "$$rc" -ne 0 ]; then printf '%s\n' "$$out"; echo "make format-check: $(CLANG_FORMAT) failed (exit $$rc)"; exit 1; fi

# The course kit (course/README.md): the notebooks made again from the lessons' READMEs and
# exercise files (Python's standard library only), the slides (pandoc, beamer), the notebooks
# run headless (nbclient) with each lesson's verdict checked. The kit's tools come from
# course/install-tools, its venv under ~/.cache (KIT_VENV); make says what is missing.
KIT_VENV ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/cuda-lessons/kit-venv
KIT_PYTHON = $(if $(wildcard $(KIT_VENV)/bin/python),$(KIT_VENV)/bin/python,python3)
.PHONY: notebooks slides run-notebooks
notebooks:
	@python3 course/make-notebooks
slides:
	@python3 course/make-slides; rc=$$?; \
	[ $$rc -ne 77 ] || echo "make slides: the tools are missing: bash course/install-tools (as root it installs pandoc and LaTeX)"; exit $$rc
run-notebooks: build-quietly
	@'$(KIT_PYTHON)' course/run-notebooks; rc=$$?; \
	[ $$rc -ne 77 ] || echo "make run-notebooks: nbclient is missing: bash course/install-tools (without a registry: course/fetch-wheels, then --wheels)"; exit $$rc

# Before anything runs: what this machine will show and what it cannot judge (tools/doctor).
doctor:
	@CUDA_PATH='$(CUDA_PATH)' NVCC='$(NVCC)' CC='$(CC)' ARCH='$(strip $(ARCH_SASS_ALSO) $(ARCH))' BATS='$(BATS)' bash tools/doctor; \
	$(call tool_status,make doctor,tools/doctor)

help:
	@echo 'Targets:'
	@echo '  make              build every lesson and its exercises (safe with -j)'
	@echo '  make programs     build the lesson programs only (not the exercises; make program is the same)'
	@echo '  make build-quietly   the build make run and make test start with: one job per CPU, a line per file, errors and warnings in full'
	@echo '  make writable     (make does it first) in a tree you cannot write: nothing to build when it is built, else one line saying what to do'
	@echo '  make run          build and run every lesson in order, then a summary line per lesson'
	@echo '  make test         build and run the bats test suite (REQUIRE_GPU=1: fail, not skip, without a GPU;'
	@echo '                   ALL_TESTS=1: the files that test the suite itself too, as CI runs it)'
	@echo '                    (TESTS=tests/01_hello_runtime.bats: some test files; -j is fine)'
	@echo '  make grade        grade every lesson'"'"'s exercises: points per exercise and the total; without a GPU it says it cannot grade here'
	@echo '  make check        the same as make grade (in a lesson'"'"'s folder, make check grades that lesson)'
	@echo '                    (SOLUTIONS=1, SUBMISSION=dir, OUT=dir FORMAT=all, GRADE_ARGS=...; see TEACHING.md)'
	@echo '  make clean        remove all build output'
	@echo '  make format       lay out every C and CUDA file as .clang-format says (make format-check: only list those it would change)'
	@echo '  make doctor       before anything runs: what this machine will show, what it cannot judge and what to do'
	@echo '                    (tools/doctor exits 0 ready, 1 something to fix, 77 no GPU; make doctor exits 0, or make'"'"'s 2 with a line naming that code)'
	@echo '  make notebooks    the course kit'"'"'s notebooks made again from the lessons'"'"' READMEs (course/notebooks; course/README.md)'
	@echo '  make slides       a PDF of slides per lesson from its README (pandoc, beamer: course/install-tools), into course/build/slides'
	@echo '  make run-notebooks   run the lesson notebooks headless (nbclient) and check each lesson'"'"'s verdict (REQUIRE_GPU=1: no GPU fails)'
	@echo '  make help         this text'
	@echo '  make -C 01_hello_runtime run|test|check|sanitize|clean|help   one lesson: test runs its'
	@echo '                    tests, check grades its exercises, sanitize runs it under compute-sanitizer'
	@echo '  make -C 03_pinned_memory chart, make -C 04_streams_overlap chart   draw the PNG from a CSV'
	@echo '  make -C 05_ptx_module ptx|cubin|fatbin|sass|list-fatbin   the build steps lesson 05 shows'
	@echo 'Variables (make VAR=value):'
	@echo '  CUDA_PATH=$(CUDA_PATH)'
	@echo '  NVCC=$(NVCC)'
	@echo '  CC=$(CC)'
	@echo '  ARCH=$(ARCH)   (the visible GPUs; else those of $(ARCH_CANDIDATES) this nvcc builds; PTX for the last; compute_NN: PTX only)'
	@echo '  ARCH_ALSO=$(ARCH_ALSO)   (machine code beside a default ARCH: 75 for Colab'"'"'s T4; ARCH_ALSO= for none)'
	@echo '  CFLAGS=$(CFLAGS)  LDFLAGS=$(LDFLAGS)  NVCCFLAGS=$(NVCCFLAGS)  dbg=1 for a debug build'
	@echo '  HOST_SANITIZE=1   host code with AddressSanitizer+UBSan, into NN_*/build-hostsan/'
	@echo '  ARGS="--device 1"   options passed to every lesson by make run (an option of one lesson only: make -C NN_name run ARGS=...)'
	@echo '  BUILD=/abs/dir    build (and make run) into dir/NN_name instead of NN_name/build: for a tree you cannot write'
	@echo '  BATS=$(BATS)  BATS_LIB_PATH=$(BATS_LIB_PATH)  BATS_FLAGS=   for make test'

endif # (the suite's own folder)
