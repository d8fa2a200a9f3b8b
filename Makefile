# Two commands do all set-up: `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

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

# .venv/bin leads the PATH, so `course-lab` works in JupyterLab's terminals.
lab: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/jupyter lab notebooks

lint: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# Re-execute the notebooks from notebooks/notebook_sources/ and store them with outputs.
notebooks: $(STAMP)
	$(BIN)/python notebooks/build.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
