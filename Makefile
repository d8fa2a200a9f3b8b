# Two commands do all set-up: `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Extra options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8890"
LAB_ARGS ?=

.PHONY: test lab lint bench notebooks clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	$(PYTHON) -m venv $(VENV)

# Re-install only when the project's metadata changed.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest --nbval --nbval-current-env tests notebooks

# JupyterLab serves the repository root, so its file browser shows practice/ and its
# terminals open where `.venv/bin/course-lab` runs; it opens the start page in notebooks/.
lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=. notebooks/00-start-here.ipynb $(LAB_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m benchmarks

# Re-execute the notebooks from notebook_tools/notebook_sources/ and store them with outputs.
notebooks: $(STAMP)
	$(BIN)/python notebook_tools/build.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
