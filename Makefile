# Two commands do all set-up: `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Extra options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8890"
LAB_ARGS ?=

.PHONY: test test-rules test-rules-newest test-browser lab lint bench mutants catalogs notebooks clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	$(PYTHON) -m venv $(VENV)

# Re-install only when the project's metadata changed.
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing the workbook and its dependencies into $(VENV) (the first time: about two minutes)..."
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# No "get notified about Jupyter news?" popup over the first notebook (this .venv only).
	$(BIN)/jupyter labextension disable --level=sys_prefix \
		"@jupyterlab/apputils-extension:announcements" > /dev/null 2>&1
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy course_lib
	$(BIN)/pytest --doctest-modules course_lib/base course_lib/chapter course_lib/beyond
	$(BIN)/pytest --nbval --nbval-current-env tests notebooks

# JupyterLab serves the repository root, so its file browser shows practice/ and its
# terminals open where `.venv/bin/course-lab` runs. jupyter_config/ (added to the config
# path) gives every terminal a shell with .venv/bin first on its PATH, so `course-lab`
# works there as typed even when `make lab` runs in the background, and saves notebooks
# without widget views whose model is gone once the kernel stops. The start page is its
# default URL, so the browser opens it and the printed URL (for --no-browser) leads to it
# too. As root (a container) JupyterLab refuses to start unless told --allow-root; only
# then is it added.
lab: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" \
	JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter_config$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	$(BIN)/jupyter lab --ServerApp.root_dir=. \
		--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
		--LabApp.default_url=/lab/tree/notebooks/00-start-here.ipynb \
		$$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

# A real browser: JupyterLab in headless Chromium runs every notebook and moves the explorers.
# Playwright drives the system's Chromium (Debian: apt-get install chromium); it downloads none.
# The class's JupyterHub (deploy/jupyterhub, browser_tests/test_hub.py) needs the hub extra and
# its proxy, configurable-http-proxy, from the npm registry: installed once into a cache
# folder outside the repository (Node.js 20+ and npm needed).
HUB_PROXY_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/course-lab/hub-proxy
HUB_PROXY := $(HUB_PROXY_DIR)/node_modules/.bin/configurable-http-proxy

$(HUB_PROXY):
	@command -v npm >/dev/null || { echo "npm not found: the hub test's proxy comes from the npm registry; install Node.js 20+ and npm (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	npm install --prefix "$(HUB_PROXY_DIR)" --no-save --no-audit --no-fund --loglevel=error configurable-http-proxy@5

test-browser: $(STAMP) $(HUB_PROXY)
	$(BIN)/python -m pip install --quiet -e '.[dev,browser,hub]'
	CONFIGURABLE_HTTP_PROXY="$(HUB_PROXY)" $(BIN)/pytest -p no:cacheprovider browser_tests

lint: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The rules' own tests: they need only `pip install .` (pydantic, filelock) plus pytest and
# hypothesis. `make test-rules` installs the lowest versions pyproject.toml allows (uv's
# lowest-direct resolution) into .venv-rules, a non-editable install, and runs them there.
# `make test-rules-newest` runs the same tests, the correct variants of every lab region
# (tests/track/test_variants.py) among them, on the newest Python found (3.14, 3.13 or 3.12;
# or NEWEST_PYTHON=...) with the newest versions, where `sum()` rounds differently.
# The folders mirror course_lib's layers; every test in these needs nothing more.
RULE_TESTS := tests/base tests/chapter tests/judge tests/labs tests/project tests/track/test_variants.py
RULES_VENV := .venv-rules
RESOLUTION := lowest-direct
NEWEST_PYTHON ?= $(shell for minor in 3.14 3.13 3.12; do \
	python$$minor -c '' 2>/dev/null && { command -v python$$minor; break; }; \
	found=$$(ls -d "$$(pyenv root 2>/dev/null)"/versions/$$minor*/bin/python$$minor 2>/dev/null | tail -n 1); \
	[ -n "$$found" ] && { echo "$$found"; break; }; done)

test-rules:
	rm -rf $(RULES_VENV)
	$(PYTHON) -m venv $(RULES_VENV)
	$(RULES_VENV)/bin/python -m pip install --quiet --upgrade pip uv
	$(RULES_VENV)/bin/python -m uv pip install --quiet --python $(RULES_VENV)/bin/python \
		--resolution $(RESOLUTION) . "pytest>=8.0" "hypothesis>=6.100"
	$(RULES_VENV)/bin/python --version
	$(RULES_VENV)/bin/python -m uv pip list --python $(RULES_VENV)/bin/python | grep -Ei '^(pydantic|filelock|jiter|pytest|hypothesis) '
	cd $(RULES_VENV) && bin/python -m pytest -q -p no:cacheprovider --rootdir .. -c ../pyproject.toml \
		$(addprefix ../,$(RULE_TESTS))
	cd $(RULES_VENV) && bin/python -m pytest -q -p no:cacheprovider --rootdir .. -c ../pyproject.toml \
		--doctest-modules --pyargs course_lib.base course_lib.chapter

test-rules-newest:
	@[ -n "$(NEWEST_PYTHON)" ] || { echo "no Python 3.12 or newer found; set NEWEST_PYTHON=/path/to/python3.13"; exit 1; }
	$(MAKE) test-rules PYTHON="$(NEWEST_PYTHON)" RULES_VENV=.venv-rules-newest RESOLUTION=highest

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m benchmarks

# Mutation testing of the lab checks: every wrong rule must fail its own lab (about a minute).
mutants: $(STAMP)
	$(BIN)/python -m course_lib.track.mutation

# The gettext catalogs (course_lib/locale): extract the marked messages, merge them into each
# language's .po (translate what it adds, then run it again) and compile the .mo that runs.
CATALOGS := course_lib/locale
catalogs: $(STAMP)
	$(BIN)/pybabel extract --mapping-file=babel.cfg --no-default-keywords --keywords=tr:2 \
		--keywords=tr_plural:2,3 --keywords=tr_shown:2 --keywords=N_ --add-comments=TRANSLATORS: \
		--no-location --sort-output --omit-header --output-file=$(CATALOGS)/course_lib.pot \
		course_lib tests/labs
	$(BIN)/pybabel update --input-file=$(CATALOGS)/course_lib.pot --output-dir=$(CATALOGS) \
		--domain=course_lib --ignore-obsolete --ignore-pot-creation-date
	$(BIN)/pybabel compile --directory=$(CATALOGS) --domain=course_lib --statistics

# Re-execute the notebooks from notebook_tools/notebook_sources/ and store them with outputs.
notebooks: $(STAMP)
	$(BIN)/python notebook_tools/build.py

clean:
	rm -rf $(VENV) $(RULES_VENV) .venv-rules-newest .pytest_cache .ruff_cache .hypothesis .mypy_cache
