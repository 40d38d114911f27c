# The one task runner. `make test` is the README's test command and what .ci/run calls.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_OPTIONS_TEST := --experimental-vm-modules --no-warnings
JEST := NODE_OPTIONS="$(NODE_OPTIONS_TEST)" npx jest
SPEC := openapi/openapi.yaml

.PHONY: help setup gen gen-check lint typecheck build test test-unit sdk-build run dev clean bench bench-search

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

node_modules/.package-lock.json: package.json package-lock.json sdk/package.json
	npm ci
	@touch $@

setup: node_modules/.package-lock.json ## Install dependencies (npm ci) when package files changed

gen: setup ## Regenerate types, operation table, MCP tools and SDK types from openapi.yaml
	npx tsx codegen/gen.ts

gen-check: gen ## Fail when `make gen` changes a committed file
	@git diff --exit-code --stat -- src/generated sdk/src/generated || { echo "Generated files are stale: run 'make gen' and commit."; exit 1; }
	@test -z "$$(git ls-files --others --exclude-standard -- src/generated sdk/src/generated)" || { echo "make gen wrote untracked files: commit them."; git ls-files --others --exclude-standard -- src/generated sdk/src/generated; exit 1; }

lint: setup ## Lint the OpenAPI document (strict Redocly config)
	npx redocly lint $(SPEC) --config openapi/redocly.yaml

typecheck: setup ## Type-check the service, tests and SDK
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p sdk/tsconfig.json --noEmit

build: setup ## Compile the service to dist/ and the SDK to sdk/dist/
	npx tsc -p tsconfig.build.json
	npm run build --workspace sdk

test-unit: setup ## Run the jest suites (unit, integration, e2e) on embedded Postgres
	@! grep -rnE '\b(it|test|describe)\.only\(' test || { echo "A focused test (.only) would skip the rest."; exit 1; }
	$(JEST) --maxWorkers=2

test: lint gen-check typecheck build test-unit ## Everything CI runs: lint, drift, types, build, all tests

bench: build ## Benchmarks: seeded 10k/100k workspaces, load vs the bare-SQL ceiling (bench/out/latest.json)
	npx tsx bench/run.ts

# Latency at 100,000 items takes Meilisearch minutes to load on 2 cores; e.g. SEARCH_LATENCY_ARGS="--items 20000 --mine 5000".
SEARCH_LATENCY_ARGS ?=
bench-search: setup ## Search relevance and latency on Postgres and Meilisearch (bench/search/README.md)
	npx tsx bench/search/relevance.ts --backends postgres,meilisearch
	npx tsx bench/search/latency.ts --backends postgres,meilisearch $(SEARCH_LATENCY_ARGS)

run: build ## Run the service on the embedded default
	node dist/src/main.js

dev: setup ## Run from source with reload
	npx tsx watch src/main.ts

clean: ## Remove build output and test scratch space (keeps ./data)
	rm -rf dist sdk/dist .tmp
