# common/lesson.mk - the build rules every lesson shares. A lesson's Makefile is:
#     include ../common/lesson.mk
# optionally preceded by LDLIBS_EXTRA := ... and followed by the lesson's own targets.
#
# The program is built from the lesson's *.c and *.cu files into build/<name>, where <name>
# is the directory name without its number (01_hello_runtime -> build/hello_runtime).
# Each folder exercises/NAME/ (and solutions/NAME/) becomes build/exercises/NAME
# (build/solutions/NAME). Targets: all, run, check, sanitize, clean, help.
# An exercise with a file exercises/NAME/files (the names of the files the student owns, one a
# line) is built from those files only, of exercises/NAME/ (or solutions/NAME/), and from the
# teacher's harness: harness/NAME/*.c *.cu (or the lesson's harness/*.c *.cu when there is no
# harness/NAME/), which holds main() and reports what it saw (the tests judge);
# harness/NAME/wrap (or harness/NAME.wrap) names the functions the harness counts (linked
# with --wrap=FUNCTION: the harness defines __wrap_FUNCTION).
# make exercise-from EXERCISE=NAME FROM=/abs/dir INTO=/abs/dir builds INTO/NAME the same way
# from the student's files found in FROM (the tests grade wrong and alternative solutions so).
# BUILD=dir (on the command line) builds into another folder; HOST_SANITIZE=1 uses build-hostsan.

# An exercise's folder may hold a Makefile of the same one line, one folder further up
# (include ../../../common/lesson.mk): there every target (make check, make) points to the
# lesson's folder, where make works, instead of make's bare "No rule to make target".
EXERCISE_FOLDER := $(filter exercises solutions,$(notdir $(patsubst %/,%,$(dir $(CURDIR)))))
ifneq ($(EXERCISE_FOLDER),)
EXERCISE_LESSON := $(shell cd ../.. && basename "$$PWD")
$(error make$(if $(MAKECMDGOALS), $(MAKECMDGOALS)) in an exercise's folder ($(EXERCISE_LESSON)/$(EXERCISE_FOLDER)/$(lastword $(subst /, ,$(CURDIR)))): make works in the lesson's folder, cd ../.. && make$(if $(MAKECMDGOALS), $(MAKECMDGOALS)) (make check there grades the exercises))
else

# Paths as the lesson's Makefile gives them (../common), relative: the checkout's own path is
# never written into a rule, so a checkout in a folder whose name holds a space builds too (make
# splits names at spaces). Only the lesson folder's own name must hold none.
COMMON := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ROOT := $(patsubst %/,%,$(dir $(COMMON)))
include $(COMMON)/config.mk
# Grading's parts (grading/README.md): the harness library and the system-call filter linked
# into every graded exercise program (never into a lesson's own programs), the object check.
GRADING := $(ROOT)/grading

LESSON := $(lastword $(subst /, ,$(CURDIR)))
NAME := $(shell echo '$(LESSON)' | sed 's/^[0-9]*_//')
ifneq ($(origin BUILD),command line)
  BUILD := $(if $(HOST_SANITIZE),build-hostsan,build)
endif
BIN := $(BUILD)/$(NAME)
# make splits names at spaces: a build folder or a toolkit whose path holds one cannot be used.
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifneq ($(words $(BUILD)),1)
$(error BUILD=$(BUILD): make cannot build into a folder whose path holds a space; give one without (a relative BUILD=build/x is inside $(LESSON)))
endif
ifneq ($(words $(CUDA_PATH) $(NVCC)),2)
$(error CUDA_PATH=$(CUDA_PATH), NVCC=$(NVCC): make cannot use a toolkit whose path holds a space; link it from a path without one (ln -s '$(CUDA_PATH)' /opt/cuda) and make CUDA_PATH=/opt/cuda)
endif
endif

# The lesson's program: its top-level *.c and *.cu files (the core and the kernels) and those of
# its instrument's folder, proof/ (the steps, measurements, claims and reports that prove the
# idea, with the program's main()); demo.c, a program of its own, is not part of it.
PROOF := proof
LESSON_SRCS := $(filter-out demo.c,$(wildcard *.c *.cu)) $(wildcard $(PROOF)/*.c $(PROOF)/*.cu)
# The demo (make demo, build/demo): demo.c with the core and the kernels, nothing of proof/, as
# the README's one nvcc line builds it by hand (a lesson's Makefile may set DEMO_SRCS before the
# include; common/ is linked as for every program). A demo that needs only its own folder (its
# demo.h) sets DEMO_COMMON empty and DEMO_LDLIBS to what its README's line links (-lcuda).
DEMO_SRCS ?= demo.c core.c $(wildcard *.cu)
DEMO_COMMON ?= $(COMMON_OBJS)
DEMO := $(if $(wildcard demo.c),$(BUILD)/demo)
EXERCISES := $(notdir $(patsubst %/,%,$(wildcard exercises/*/)))
SOLUTION_DIRS := $(notdir $(patsubst %/,%,$(wildcard solutions/*/)))
EXERCISE_BINS := $(EXERCISES:%=$(BUILD)/exercises/%) $(SOLUTION_DIRS:%=$(BUILD)/solutions/%)

INCLUDES := -I$(COMMON) -I$(CUDA_PATH)/include -I. $(if $(wildcard $(PROOF)/),-I$(PROOF)) $(if $(wildcard harness/),-Iharness -I$(GRADING)/harness)
# q: one word for the shell whatever the name holds ($(), spaces, quotes, ...): as it is when it
# holds only letters, digits and _./+-= (what the output shows), else in single quotes.
unsafe = $(strip $(subst =,,$(subst -,,$(subst +,,$(subst /,,$(subst .,,$(subst _,,$(subst 9,,$(subst 8,,$(subst 7,,$(subst 6,,$(subst 5,,$(subst 4,,$(subst 3,,$(subst 2,,$(subst 1,,$(subst 0,,$(subst Z,,$(subst Y,,$(subst X,,$(subst W,,$(subst V,,$(subst U,,$(subst T,,$(subst S,,$(subst R,,$(subst Q,,$(subst P,,$(subst O,,$(subst N,,$(subst M,,$(subst L,,$(subst K,,$(subst J,,$(subst I,,$(subst H,,$(subst G,,$(subst F,,$(subst E,,$(subst D,,$(subst C,,$(subst B,,$(subst A,,$(subst z,,$(subst y,,$(subst x,,$(subst w,,$(subst v,,$(subst u,,$(subst t,,$(subst s,,$(subst r,,$(subst q,,$(subst p,,$(subst o,,$(subst n,,$(subst m,,$(subst l,,$(subst k,,$(subst j,,$(subst i,,$(subst h,,$(subst g,,$(subst f,,$(subst e,,$(subst d,,$(subst c,,$(subst b,,$(subst a,,$(1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
q = $(if $(call unsafe,$(1)),'$(subst ','\'',$(1))',$(1))
qall = $(foreach w,$(1),$(call q,$(w)))
ALL_CFLAGS := -std=c11 -Wall -Wextra -Werror $(INCLUDES) $(CFLAGS) $(DBG_CFLAGS) $(SANITIZE_CFLAGS)
ALL_NVCCFLAGS := -std=c++17 $(GENCODE) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
                 $(INCLUDES) $(NVCCFLAGS) $(DBG_NVCCFLAGS) $(call nvcc_host,$(SANITIZE_CFLAGS))
LDLIBS := $(LDLIBS_EXTRA) -ldl -lpthread
# grading/check/check-object reads the student's source as the build's compiler does: its
# preprocessor's output (-E) with these (a .c file with the first two, a .cu with the others).
export CHECK_OBJECT_CC := $(CC)
export CHECK_OBJECT_CFLAGS := $(ALL_CFLAGS)
export CHECK_OBJECT_NVCC := $(NVCC)
export CHECK_OBJECT_NVCCFLAGS := -std=c++17 $(INCLUDES) $(NVCCFLAGS) $(DBG_NVCCFLAGS)
# The names the libraries define, which check-object reads with nm (about 0.25 s of CPU a
# check), kept in the build folder from one check to the next under the libraries' key (a
# build of the tree checks 36 files); grading/grade's builds set it empty: there each check
# reads them itself, and nothing a build left behind is trusted.
CHECK_OBJECT_LIB_TABLE ?= $(BUILD)/check-object-lib-names
export CHECK_OBJECT_LIB_TABLE
# The link (through nvcc, which adds the CUDA runtime) takes CFLAGS and LDFLAGS too.
LINK_FLAGS := $(GENCODE) $(call nvcc_host,$(CFLAGS) $(DBG_CFLAGS) $(SANITIZE_CFLAGS) $(LDFLAGS))

# Every common/*.c is compiled once per lesson and linked into each of its programs; a
# common/NAME.cu only into the lessons whose Makefile names it in COMMON_CU (before the include).
COMMON_OBJS := $(patsubst $(COMMON)/%.c,$(BUILD)/obj/common/%.o,$(wildcard $(COMMON)/*.c)) \
               $(COMMON_CU:%=$(BUILD)/obj/common/%.cu.o)
# What every exercise program links beside them: grading/harness/*.c (the filter).
GRADING_OBJS := $(patsubst $(GRADING)/harness/%.c,$(BUILD)/obj/grading/%.o,$(wildcard $(GRADING)/harness/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(1)))
# PROGRESS=1 (the top-level make run and make test, which build with -s): a line per file built.
progress = $(if $(PROGRESS),@echo $(call q,$(LESSON): $(1)))

.PHONY: all program programs demo exercises run test check sanitize clean help FORCE
.DEFAULT_GOAL := all
# EXERCISES_MAY_FAIL=1 (the top-level make gives it): a student's exercise that does not build
# (yet) stops neither the lesson's program nor the suite (exercises-may-fail, below).
ifdef EXERCISES_MAY_FAIL
all: $(BIN) $(DEMO) $(SOLUTION_DIRS:%=$(BUILD)/solutions/%) $(if $(EXERCISES),exercises-may-fail)
else
all: $(BIN) $(DEMO) $(EXERCISE_BINS)
endif
program: $(BIN)
demo: $(DEMO)
programs: program
exercises: $(EXERCISE_BINS)

ifeq ($(NVCC_FOUND),)
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(error $(NO_NVCC_MESSAGE))
endif
endif

# A lesson folder this user cannot write (a shared copy) and not built: one line, what to do.
ifeq ($(filter clean help test check exercise-from,$(MAKECMDGOALS)),)
ifeq ($(wildcard $(BIN)),)
BUILD_WRITABLE := $(shell p=$(call q,$(BUILD)); while [ ! -e "$$p" ]; do p=$$(dirname "$$p"); done; [ -w "$$p" ] && echo yes)
ifneq ($(BUILD_WRITABLE),yes)
$(error $(LESSON) is read-only for you (a shared copy?) and not built: build into a folder of yours, make $(or $(MAKECMDGOALS),all) BUILD=$$HOME/cuda-lessons-build/$(LESSON) (an absolute path), or copy the tree and make there)
endif
endif
endif

# Rebuild everything when the flags change (dbg=1, ARCH=..., CFLAGS=...).
$(BUILD)/flags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) | $(NVCC) $(ALL_NVCCFLAGS) | $(LINK_FLAGS) $(LDLIBS)' | cmp -s - $(call q,$@) \
	  || echo '$(CC) $(ALL_CFLAGS) | $(NVCC) $(ALL_NVCCFLAGS) | $(LINK_FLAGS) $(LDLIBS)' > $(call q,$@)

$(BUILD)/obj/%.o: %.c $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $(call q,$<) -o $(call q,$@)
	$(call progress,$<)

$(BUILD)/obj/%.cu.o: %.cu $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $(call q,$<) -o $(call q,$@)
	$(call progress,$<)

$(BUILD)/obj/common/%.o: $(COMMON)/%.c $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $(call q,$<) -o $(call q,$@)
	$(call progress,$<)

# The Driver API that common/driver_loader.c forwards: the whole of the toolkit's cuda.h, its
# table generated into the build folder by common/driver-forward (with the build's C compiler's
# preprocessor), never kept by hand; that file alone is compiled with it (driver_loader.c's top).
DRIVER_FORWARD := $(BUILD)/gen/driver_forward.h
$(DRIVER_FORWARD): $(COMMON)/driver-forward $(wildcard $(CUDA_PATH)/include/cuda.h) $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	sh $(call q,$(COMMON)/driver-forward) $(call q,$(CUDA_PATH)/include) $(call q,$@) '$(CC)'
$(BUILD)/obj/common/driver_loader.o: $(DRIVER_FORWARD)
# (check-object refuses an allowed Driver API call that is not in it, by name)
export CHECK_OBJECT_DRIVER_TABLE := $(DRIVER_FORWARD)
$(BUILD)/obj/common/driver_loader.o: ALL_CFLAGS += -DDRIVER_FORWARD_GENERATED -I$(BUILD)/gen

$(BUILD)/obj/grading/%.o: $(GRADING)/harness/%.c $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $(call q,$<) -o $(call q,$@)
	$(call progress,$<)

$(BUILD)/obj/common/%.cu.o: $(COMMON)/%.cu $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $(call q,$<) -o $(call q,$@)
	$(call progress,$<)

$(BIN): $(call obj,$(LESSON_SRCS)) $(COMMON_OBJS)
	$(NVCC) $(LINK_FLAGS) -o $(call q,$@) $(call qall,$^) $(LDLIBS)
	$(call progress,$@)

ifneq ($(DEMO),)
$(DEMO): $(call obj,$(DEMO_SRCS)) $(DEMO_COMMON)
	$(NVCC) $(LINK_FLAGS) -o $(call q,$@) $(call qall,$^) $(or $(DEMO_LDLIBS),$(LDLIBS))
	$(call progress,$@)
else
demo:
	@echo '$(LESSON) has no demo.c' >&2; exit 2
endif

# An exercise (or its solution): the student's files (those exercises/NAME/files lists, else
# every .c and .cu file of its folder) and the harness's, see the top of this file.
student_srcs = $(if $(wildcard exercises/$(2)/files),$(addprefix $(1)/$(2)/,$(filter %.c %.cu,$(shell cat 'exercises/$(2)/files'))),$(call safe_names,$(wildcard $(1)/$(2)/*.c $(1)/$(2)/*.cu)))
# nvcc runs the link through a shell of its own, quoted or not: a file whose name holds
# anything but letters, digits and _./+-= is left out of the build (and said so).
safe_names = $(foreach f,$(1),$(if $(call unsafe,$(f)),$(warning $(f): left out of the build: a file name may hold only letters, digits and _./+-=),$(f)))
harness_srcs = $(if $(wildcard harness/$(1)/),$(wildcard harness/$(1)/*.c harness/$(1)/*.cu),$(if $(wildcard exercises/$(1)/files),$(wildcard harness/*.c harness/*.cu)))
harness_wraps = $(foreach f,$(shell cat 'harness/$(1)/wrap' 'harness/$(1).wrap' 2>/dev/null),-Xlinker --wrap=$(f))
# Before the link, the student's objects are checked (grading/check/check-object: no constructors,
# no init/fini sections, no system call of their own, only the calls grading/check/exercise-allow and
# harness/NAME/allow (or harness/NAME.allow) name); a refused one fails the build with its reason.
# check_objects EXERCISE, OBJECT SOURCE pairs. Not in a HOST_SANITIZE=1 build (the sanitizers
# add constructors and calls of their own): a build to debug with, never to grade with.
check_objects = $(if $(HOST_SANITIZE),echo 'check-object: not run on $(1) in a HOST_SANITIZE=1 build (never grade with one)',bash $(call q,$(GRADING)/check/check-object) $(call q,$(firstword $(wildcard harness/$(1)/allow harness/$(1).allow) none)) $(2))
# WATCH_DRIVER=1: beside the exercise programs (never the lesson's own), the stand-in driver
# grading/harness/driver_watch (it counts what the student's code makes and can make its calls
# fail), found before any other libcuda.so.1 through the programs' RPATH $$ORIGIN. grading/grade
# builds with it, and make exercise-from (how a grader builds a submission) does by default
# (WATCH_DRIVER=0 to build without); DRIVER_WATCH_LIB: a stand-in built already, copied beside
# the program exercise-from builds (grading/corpus/corpus builds one for every variant).
ifneq ($(filter exercise-from,$(MAKECMDGOALS)),)
WATCH_DRIVER ?= 1
endif
DRIVER_WATCH_LIB ?= $(BUILD)/exercises/libcuda.so.1
WATCH_LIB = $(if $(filter 1,$(WATCH_DRIVER)),$(BUILD)/$(1)/libcuda.so.1)
WATCH_LINK = $(if $(filter 1,$(WATCH_DRIVER)),-Xlinker --disable-new-dtags -Xlinker -rpath -Xlinker '$$ORIGIN')
$(BUILD)/exercises/libcuda.so.1 $(BUILD)/solutions/libcuda.so.1: $(GRADING)/harness/driver_watch/driver_watch.c $(GRADING)/harness/driver_watch/driver_watch.h $(GRADING)/harness/driver_watch/build
	@mkdir -p $(call q,$(@D))
	CUDA_PATH=$(call q,$(CUDA_PATH)) bash $(call q,$(GRADING)/harness/driver_watch/build) $(call q,$(@D)/driver_watch) >/dev/null
	cp -f $(call q,$(@D)/driver_watch/libcuda.so.1) $(call q,$@)
define exercise_rule
$(BUILD)/$(1)/$(2): $$(call obj,$$(call harness_srcs,$(2)) $$(call student_srcs,$(1),$(2))) $$(COMMON_OBJS) $$(GRADING_OBJS) | $$(call WATCH_LIB,$(1))
	@mkdir -p $$(call q,$$(@D))
	@$$(call check_objects,$(2),$$(foreach s,$$(call student_srcs,$(1),$(2)),$$(call q,$$(call obj,$$(s))) $$(call q,$$(s))))
	$$(NVCC) $$(LINK_FLAGS) $$(WATCH_LINK) $$(call harness_wraps,$(2)) -o $$(call q,$$@) $$(call qall,$$^) $$(LDLIBS)
endef
$(foreach e,$(EXERCISES),$(eval $(call exercise_rule,exercises,$(e))))
$(foreach e,$(SOLUTION_DIRS),$(eval $(call exercise_rule,solutions,$(e))))

# make EXERCISES_MAY_FAIL=1 (make, make run and make test at the top level): the exercises in
# exercises/ (the student's; the solutions build as always) are built by a make of their own
# with -k, once every object they share with the program and the solutions is built (no two
# makes build one file). Its messages go to build/exercises.log; an exercise that does not build
# is named in one line, and make check, which builds them as usual, shows the compiler's message.
# The names of those that did not build go to build/exercises.unbuilt (the top-level make run
# names them again in its summary). make's "is up to date" lines are left out.
.PHONY: exercises-may-fail
exercises-may-fail: $(sort $(COMMON_OBJS) $(GRADING_OBJS) $(call obj,$(foreach e,$(EXERCISES),$(call harness_srcs,$(e)))))
	@log=$(call q,$(BUILD)/exercises.log); : 2>/dev/null >"$$log" || log=$$(mktemp); out=$$(mktemp); \
	$(MAKE) --no-print-directory -k $(call qall,$(EXERCISES:%=$(BUILD)/exercises/%)) 2>"$$log" >"$$out"; rc=$$?; \
	grep -v 'is up to date' "$$out"; rm -f "$$out"; \
	if [ $$rc -eq 0 ]; then cat "$$log" >&2; rm -f $(call q,$(BUILD)/exercises.unbuilt); \
	else ex=$$(grep -E '[*][*][*]|not remade' "$$log" \
	  | grep -oE "$(BUILD)/(obj/)?exercises/[^/' ]+" | sed 's,.*/,,' | sort -u | tr '\n' ' ' | sed 's/ $$//'); \
	  echo "$$ex" 2>/dev/null >$(call q,$(BUILD)/exercises.unbuilt); \
	  case "$$ex" in *' '*) what="the exercises $$ex do"  ;; '') what='an exercise does' ;; *) what="the exercise $$ex does" ;; esac; \
	  echo "$(LESSON): $$what not build yet, $(if $(filter run,$(EXERCISES_MAY_FAIL)),and the lesson runs all the same,the rest of the lesson is built) (make -C $(LESSON) check shows the compiler's message)"; \
	fi; \
	case "$$log" in $(call q,$(BUILD)/exercises.log)) ;; *) rm -f "$$log" ;; esac

# make exercise-from EXERCISE=NAME FROM=/abs/dir INTO=/abs/dir (see the top of this file).
# FROM and INTO inside the checkout are taken relative to the lesson, so that a checkout whose
# path holds a space works; elsewhere a path with a space stops with one line.
CHECKOUT_DIR := $(patsubst %/$(LESSON),%,$(CURDIR))
ifneq ($(FROM),)
override FROM := $(subst $(CHECKOUT_DIR)/,../,$(FROM))
endif
ifneq ($(INTO),)
override INTO := $(subst $(CHECKOUT_DIR)/,../,$(INTO))
endif
ifneq ($(words $(FROM) $(INTO)),$(words $(if $(FROM),x) $(if $(INTO),x)))
$(error FROM=$(FROM), INTO=$(INTO): make cannot use a folder whose path holds a space outside the checkout; give one without)
endif
.PHONY: exercise-from
ifneq ($(and $(EXERCISE),$(FROM),$(INTO)),)
FROM_SRCS := $(filter %.c %.cu,$(shell cat 'exercises/$(EXERCISE)/files' 2>/dev/null))
FROM_OBJS := $(patsubst %.c,$(INTO)/obj/%.o,$(patsubst %.cu,$(INTO)/obj/%.cu.o,$(FROM_SRCS)))
$(INTO)/obj/%.o: $(FROM)/%.c $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(CC) $(ALL_CFLAGS) -c $(call q,$<) -o $(call q,$@)
$(INTO)/obj/%.cu.o: $(FROM)/%.cu $(BUILD)/flags
	@mkdir -p $(call q,$(@D))
	$(NVCC) $(ALL_NVCCFLAGS) -c $(call q,$<) -o $(call q,$@)
$(INTO)/$(EXERCISE): $(call obj,$(call harness_srcs,$(EXERCISE))) $(FROM_OBJS) $(COMMON_OBJS) $(GRADING_OBJS) | $(if $(filter 1,$(WATCH_DRIVER)),$(INTO)/libcuda.so.1)
	@$(call check_objects,$(EXERCISE),$(foreach s,$(FROM_SRCS),$(call q,$(INTO)/obj/$(patsubst %.c,%.o,$(patsubst %.cu,%.cu.o,$(s)))) $(call q,$(FROM)/$(s))))
	$(NVCC) $(LINK_FLAGS) $(WATCH_LINK) $(call harness_wraps,$(EXERCISE)) -o $(call q,$@) $(call qall,$^) $(LDLIBS)
ifeq ($(WATCH_DRIVER),1)
$(INTO)/libcuda.so.1: $(DRIVER_WATCH_LIB)
	@mkdir -p $(call q,$(@D))
	cp -f $(call q,$<) $(call q,$@)
endif
exercise-from: $(INTO)/$(EXERCISE)
else
exercise-from:
	@echo 'make exercise-from needs EXERCISE=NAME FROM=/abs/dir INTO=/abs/dir' >&2; exit 2
endif

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Exit 77 (cannot run here: no usable GPU or driver; the program said why) is not a failure,
# as in the top-level make run: make says so and exits 0 instead of "Error 77".
run: $(BIN)
	@echo '$(patsubst .//%,/%,./$(BIN)) $(ARGS)'; $(patsubst .//%,/%,./$(BIN)) $(ARGS); rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "$(LESSON): could not run here (exit 77; the lines above say why)"; exit 0; fi; \
	exit $$rc

# This lesson's tests (its own and its regimes), through the top-level make test.
test:
	@$(MAKE) --no-print-directory -C $(call q,$(ROOT)) test TESTS='tests/$(LESSON).bats tests/regimes-$(LESSON).bats'

# Grade the exercises: make check (your work in exercises/), make check SOLUTIONS=1 (the
# reference solutions). ../grading/grade builds each exercise, runs its tests from
# grading/judge/$(LESSON).bats under a time limit (CHECK_TIMEOUT seconds per exercise) and
# prints the points of exercises/points. Without a usable GPU it says why and exits 77:
# nothing counts as passed unless it ran.
BATS ?= bats
BATS_LIB_PATH ?= /usr/lib/bats
export BATS_LIB_PATH
CHECK_TIMEOUT ?= 300
check:
	@BATS='$(BATS)' '$(ROOT)/grading/grade' $(if $(SOLUTIONS),--solutions) --timeout '$(CHECK_TIMEOUT)' $(LESSON); \
	$(call tool_status,make check,../grading/grade $(LESSON))

# Run the program under the four compute-sanitizer tools; fails on any report (exit 99) or when
# the program cannot run (2, 77). Exit 1 is the lesson's own verdict: under the tools a program
# runs many times slower, so a timing claim may fail there; the tool's summary is what counts.
# A lesson sets SANITIZE_ARGS (small sizes, so it fits) and SANITIZE_FLAGS before the include.
SANITIZER ?= $(or $(shell command -v compute-sanitizer 2>/dev/null),$(wildcard $(CUDA_PATH)/bin/compute-sanitizer),$(wildcard $(CUDA_PATH)/compute-sanitizer/compute-sanitizer),$(CUDA_PATH)/bin/compute-sanitizer)
sanitize: $(BIN)
	@command -v '$(SANITIZER)' >/dev/null 2>&1 || { echo "make sanitize: compute-sanitizer not found (looked for '$(SANITIZER)', on PATH and in $(CUDA_PATH)/bin): install the CUDA toolkit's compute-sanitizer (the cuda-sanitizer package) or run make sanitize SANITIZER=/path/to/compute-sanitizer" >&2; exit 1; }
	@failed=0; for tool in "memcheck --leak-check full" racecheck synccheck initcheck; do \
	  log=$(BUILD)/sanitize-$${tool%% *}.log; \
	  $(SANITIZER) --tool $$tool --error-exitcode 99 $(SANITIZE_FLAGS) ./$(BIN) $(SANITIZE_ARGS) \
	    >$$log 2>&1; rc=$$?; \
	  printf '%-28s exit %-3s %s\n' "$$tool" $$rc \
	    "$$(grep -hE '(ERROR|LEAK|RACECHECK) SUMMARY' $$log | sed 's/=* *//' | tr '\n' ' ')"; \
	  case $$rc in 0|1) ;; *) failed=1 ;; esac; \
	done; exit $$failed

clean::
	@echo '$(LESSON): rm -rf $(BUILD) build-hostsan build-ptx75'; rm -rf $(BUILD) build-hostsan build-ptx75

# The lesson's own targets (the .PHONY line of its Makefile) are listed by help with the
# Makefile's comment line "# make TARGET ..." for each.
LESSON_TARGETS := $(filter-out all program programs demo exercises exercise-from run test check sanitize clean help FORCE,$(shell sed -n 's/^\.PHONY: *//p' Makefile 2>/dev/null))

help:
	@echo 'make            build build/$(NAME) and the exercises'
	@echo 'make program    build build/$(NAME) only, not the exercises (make programs: the same, as at the top)'
	@echo 'make exercises  build the exercises and their solutions only'
	@echo 'make demo       build build/demo: demo.c, the idea in one short program (the README shows its nvcc line)'
	@echo 'make run        build and run it (ARGS="--device 1" passes options; exit 77, cannot run here, is not an error)'
	@echo 'make test       this lesson'"'"'s tests (tests/$(LESSON).bats and its regimes), through the top-level make test'
	@echo 'make check      grade your exercises: points per exercise; without a GPU it says it cannot grade here (SOLUTIONS=1: the reference solutions)'
	@echo 'make sanitize   run it under compute-sanitizer: memcheck (leaks too), racecheck, synccheck, initcheck'
	@echo 'make clean      remove build/ (and build-hostsan/)'
	@echo 'make help       this text'
	@seen=; for t in $(LESSON_TARGETS); do \
	  line=$$(grep -m1 -E "^#.*make $$t( |:|$$)" Makefile | sed -E 's/^# *//'); \
	  case "$$seen" in *"|$$line|"*) [ -z "$$line" ] || continue ;; esac; seen="$$seen|$$line|"; \
	  echo "$${line:-make $$t   (a target of this lesson's Makefile)}"; \
	done
	@echo 'variables: CUDA_PATH NVCC CC ARCH CFLAGS LDFLAGS NVCCFLAGS dbg=1 HOST_SANITIZE=1 (see ../common/config.mk)'

endif # (an exercise's folder, at the top)
