# Entry points.  Each target is a thin call into scripts/; see README.md.
#   make check [REVS="A..B"]   build, boot and test every commit (the main job)
#   make test                  the project's own test suite (what CI runs)
#   make test-fast             the fixture tests only (SKIP_KERNEL=1): nothing built or booted
#   make bench [REVS=…]        measure every commit, compare with the base
#   make bisect GOOD=… BAD=… METRIC=… [THRESHOLD=…]   find a regression
#   make mail [REROLL=N]       the series as mail files, with b4
#   make rebase [CONTINUE=1|SKIP=1|ABORT=1]   carry the series onto the newest imported base
#   make step REV=…            one order-0 alloc and free single-stepped: instructions by function
#   make step-lines REV=… [FN=__free_pages] [LINES=1]   the same instructions by source function and line
#   make profile [REVS=…]      where hackbench, tbench and page faults spend allocator instructions
#   make contend [REVS=…]      zone->lock with two CPUs allocating at once: lock waiting per page
#   make lock-held [REVS=…]    instructions executed under zone->lock per pcp refill and drain
#   make bloat [REVS="A B"]    bloat-o-meter on each object the series changes, base against tip
#   make equivalence [REV=…]   REV's bench kernel and Debian's own binary step the same instructions?
#   make figures [NAMES=…]     rewrite each changelog's measured figures, then replay
#   make time-check [DIR=…]    time make check from nothing in a fresh clone, and after an edit
SHELL := /bin/bash
S := scripts

.PHONY: help deps import replay export rebase build boot step step-lines profile lock-held bloat contend equivalence figures time-check check test test-fast bench bisect mail lint

help:
	@sed -n 's/^#   /  /p' Makefile
	@echo "  make deps | import | replay | export | build REV=… | boot REV=… [RUN=…] | lint"

deps:
	@$(S)/deps.sh

import: deps
	@$(S)/import.sh

replay: import
	@$(S)/replay.sh

export:
	@$(S)/export.sh

# A yes/no setting: 1 gives the option, 0 or empty nothing, anything else
# stops make.  usage: $(call flag,NAME,--option)
flag = $(if $(filter-out 0 1,$(strip $($(1))))$(word 2,$($(1))),$(error $(1)=$($(1)): give $(1)=1 or $(1)=0),$(if $(filter 1,$(strip $($(1)))),$(2)))
# Checked when make reads this file, before deps and import run.
ifneq ($(filter rebase,$(MAKECMDGOALS)),)
REBASE_OPT := $(strip $(call flag,CONTINUE,--continue) $(call flag,SKIP,--skip) $(call flag,ABORT,--abort))
$(if $(word 2,$(REBASE_OPT)),$(error CONTINUE=1, SKIP=1 and ABORT=1: one at a time))
endif
ifneq ($(filter step-lines,$(MAKECMDGOALS)),)
LINES_OPT := $(call flag,LINES,--lines)
endif

rebase: import
	@$(S)/rebase.sh $(REBASE_OPT)

build: deps
	@$(S)/build.sh $(or $(REV),$(error REV=<commit> is required))

boot: deps
	@$(S)/boot.sh $(if $(RUN),--run $(RUN)) $(if $(MODE),--mode $(MODE)) $(or $(REV),$(error REV=<commit> is required))

step: deps
	@$(S)/step.sh $(or $(REV),$(error REV=<commit> is required))

step-lines: deps
	@$(S)/step-lines.sh $(LINES_OPT) $(or $(REV),$(error REV=<commit> is required)) $(FN)

profile: deps
	@$(S)/profile.sh $(REVS)

lock-held: deps
	@$(S)/lock-held.sh $(REVS)

bloat: deps
	@$(S)/bloat.sh $(REVS)

contend: deps
	@$(S)/contend.sh $(REVS)

equivalence: deps
	@$(S)/equivalence.sh $(REV)

figures: deps
	@$(S)/figures.sh $(NAMES) && $(S)/replay.sh

time-check:
	@$(S)/time-check.sh $(DIR)

check: deps
	@$(S)/check.sh $(REVS)

lint: deps
	@prove tests/t0010-lint.t tests/t0015-settings.t

bench: deps
	@$(S)/bench.sh $(REVS)

bisect: deps
	@bisect/run.sh $(or $(GOOD),$(error GOOD=<rev> is required)) $(or $(BAD),$(error BAD=<rev> is required)) \
		$(or $(METRIC),$(error METRIC=boot|kunit:SUITE.CASE|<figure> is required)) $(THRESHOLD)

mail: deps
	@$(S)/mail.sh $(REROLL)

# The base's cold build starts beside the fixture tests (warm-base.sh).
test: deps
	@$(if $(SKIP_KERNEL),,$(S)/lib/warm-base.sh &) prove -v --timer tests/

test-fast: deps
	@SKIP_KERNEL=1 prove tests/
