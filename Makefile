# Thin wrappers over npm scripts. `make run` and `make test` work on a fresh clone: they install
# what they need first.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.veil-installed
export npm_config_nodedir := $(shell scripts/node-headers.sh)
PORT ?= 3000

.PHONY: help install build run test typecheck lint unit e2e bench eval clean

help:
	@echo "make run    - install, build and start Veil on port $(PORT) (built-in default policy)"
	@echo "make test   - install, build, type-check, lint and run every test"
	@echo "make bench  - run the benchmarks (writes figures to stdout)"
	@echo "make eval   - score detection on the dev corpus against a live server"

$(NPM_STAMP): package.json package-lock.json common/package.json server/package.json operator/package.json e2e/package.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

build: install
	npx tsc -b

run: build
	node server/bin/veil.js serve --port $(PORT)

typecheck: install
	npx tsc -b
	npx tsc -p tsconfig.tools.json

lint: install
	npx eslint .

unit: build
	npx vitest run --exclude 'e2e/**'

e2e: build
	npx vitest run e2e

test: typecheck lint
	npx vitest run

bench: build
	node --expose-gc server/dist/bench/run.js

eval: build
	python3 ../shared/tools/eval_detect.py ../shared/data/dev-corpus.jsonl --url http://127.0.0.1:$(PORT)

clean:
	rm -rf node_modules */node_modules */dist .cache
