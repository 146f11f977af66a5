# dory-wire — every target installs what it needs, idempotently.
# `make test` runs every test; `make demo` runs the main job.
SHELL := /bin/bash
.DEFAULT_GOAL := test

.PHONY: test test-rust test-python test-npm test-e2e test-fuzz-smoke demo bench fuzz setup-python setup-wasm

test: test-rust test-python test-npm test-e2e test-fuzz-smoke
	@echo "== make test: all suites passed"

test-rust:
	bash scripts/test-rust.sh

test-python:
	bash scripts/test-python.sh

test-npm:
	bash scripts/test-npm.sh

test-e2e:
	bash scripts/test-e2e.sh

test-fuzz-smoke:
	bash scripts/fuzz.sh smoke

setup-python:
	bash scripts/setup-python.sh

setup-wasm:
	bash scripts/setup-wasm.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

fuzz:
	bash scripts/fuzz.sh full
