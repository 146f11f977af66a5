# dory-wire — every target installs what it needs, idempotently.
# `make test` (scripts/test.sh) builds once, runs every test suite, even
# after one fails, then prints a summary (target/test-summary.txt: PASS, FAIL
# or SKIP with the reason, per suite) and the time of every build and test
# step (target/timings/test.tsv), and fails if any suite failed.
# `make demo` runs the main job, every step timed (target/timings/demo.tsv).
# `make check` is the quick loop: format, lint and the core's tests.
SHELL := /bin/bash
.DEFAULT_GOAL := test

SUITES := repo rust python component npm release docs runtimes e2e fuzz-smoke
SUMMARY := $(CURDIR)/target/test-summary.txt

.PHONY: test check serve $(addprefix test-,$(SUITES)) component demo bench fuzz setup-python setup-wasm docs dist release-check

test:
	@bash scripts/test.sh $(SUITES)

check:
	@bash scripts/check.sh

test-repo:
	@bash scripts/suite.sh run repo bash scripts/test-repo.sh

test-rust:
	@bash scripts/suite.sh run rust bash scripts/test-rust.sh

test-python:
	@bash scripts/suite.sh run python bash scripts/test-python.sh

# Before test-npm: it builds npm/component/, which the npm package ships.
test-component:
	@bash scripts/suite.sh run component bash scripts/test-component.sh

test-npm:
	@bash scripts/suite.sh run npm bash scripts/test-npm.sh

# The packed npm package in Node 20 and 18, Deno, Bun, Cloudflare Workers
# (workerd), Firefox and Chromium: the same checks in each (tests/runtimes).
test-runtimes:
	@bash scripts/suite.sh run runtimes bash scripts/test-runtimes.sh

# Needs npm/dist, which test-npm builds.
test-release:
	@bash scripts/suite.sh run release bash scripts/test-release.sh

# The documentation site: make docs, its links, its code blocks, its search in Chromium.
test-docs:
	@bash scripts/suite.sh run docs bash scripts/test-docs.sh

test-e2e:
	@bash scripts/suite.sh run e2e bash scripts/test-e2e.sh

test-fuzz-smoke:
	@bash scripts/suite.sh run fuzz-smoke bash scripts/fuzz.sh smoke

# The WebAssembly component (WIT package dory:wire); prints the artifact's path.
component:
	@bash scripts/component.sh

setup-python:
	bash scripts/setup-python.sh

setup-wasm:
	bash scripts/setup-wasm.sh

demo:
	bash scripts/demo.sh

# The reference server on http://127.0.0.1:8080 (PORT=... for another), to
# try a client against; Ctrl-C stops it.
PORT ?= 8080
serve:
	@bash scripts/build.sh native
	"$${CARGO_TARGET_DIR:-target}/debug/dory-refserver" --port $(PORT)

bench:
	bash scripts/bench.sh

fuzz:
	bash scripts/fuzz.sh full

docs:
	bash scripts/docs.sh

dist:
	bash scripts/dist.sh

release-check:
	bash scripts/release-check.sh
