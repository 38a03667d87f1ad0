# Entry points.  Each target is a thin call into scripts/; see README.md.
#   make check [REVS="A..B"]   build, boot and test every commit (the main job)
#   make test                  the project's own test suite (what CI runs)
SHELL := /bin/bash
S := scripts

.PHONY: help deps import replay export build boot check test test-fast bench bisect mail lint

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

build: deps
	@$(S)/build.sh $(or $(REV),$(error REV=<commit> is required))

boot: deps
	@$(S)/boot.sh $(if $(RUN),--run $(RUN)) $(if $(MODE),--mode $(MODE)) $(or $(REV),$(error REV=<commit> is required))

check: deps
	@$(S)/check.sh $(REVS)

lint: deps
	@prove tests/t0010-lint.t

test: deps
	@prove -v tests/

test-fast: deps
	@SKIP_KERNEL=1 prove tests/
