# `make setup` creates .venv, installs everything and builds the book; `make test` runs all tests.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: setup book test test-slow test-numerics lint export lock student grade gradescope clean

setup: book

# requirements.txt is the lock (exact versions of everything); requirements.in says what we need.
# TORCH_INDEX: a package index to take PyTorch from first, e.g. PyTorch's CPU-only index on Linux,
# where PyPI's torch is the multi-GB CUDA build (README, "Platforms").
TORCH_INDEX ?=

$(VENV)/installed: requirements.txt pyproject.toml
	$(PYTHON) tools/check_platform.py
	$(PYTHON) -m venv $(VENV)
	$(if $(TORCH_INDEX),$(BIN)/pip install torch==2.13.0 --index-url $(TORCH_INDEX))
	$(BIN)/pip install -r requirements.txt
	touch $@

book: $(VENV)/installed
	$(BIN)/jupyter-book build . -W -n --keep-going

test: $(VENV)/installed
	$(BIN)/pytest --nbval --nbval-current-env -m "not slow"

# The slow tests: the book built and opened in a browser, the student edition built and run.
test-slow: $(VENV)/installed
	$(BIN)/pytest -m slow

# Every notebook again under configurations that change the floating-point bits (other SIMD
# loops, BLAS kernels and thread counts): the stored outputs must not depend on them.
test-numerics: $(VENV)/installed
	$(BIN)/python tools/numerics_matrix.py

# Lint and format (ruff, configured in pyproject.toml) and the engine's type hints (mypy).
lint: $(VENV)/installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

export: $(VENV)/installed
	$(BIN)/python -m course.export

# Re-resolve requirements.in to the newest versions it allows and pin them all in requirements.txt.
# torch's local label (+cpu, from a CPU-only wheel) is dropped so that the pin reads torch==X.Y.Z.
lock: $(VENV)/installed
	$(BIN)/pip install --quiet pip-tools
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --upgrade --allow-unsafe \
	    --strip-extras --no-emit-find-links --no-emit-index-url \
	    --output-file requirements.lock.tmp requirements.in
	sed 's/^torch==\([^+ ]*\)+[a-z0-9.]*/torch==\1/' requirements.lock.tmp > requirements.txt
	printf '\n# The engine itself, editable, so every notebook kernel can `import engine`.\n-e .\n' \
	    >> requirements.txt
	rm requirements.lock.tmp

# The student edition (stubs for the tasks, solutions withheld, its own engine) in student/.
# Standard library only: no virtual environment needed.
student:
	$(PYTHON) tools/student_edition.py --out student

# Grade a student's folder (an edition, or its notebooks): SUBMISSION=path/to/folder.
# Writes Gradescope's results.json (GRADE_JSON) and prints the score.
GRADE_JSON ?= results.json
grade: $(VENV)/installed
	$(BIN)/python tools/grade.py "$(SUBMISSION)" --json "$(GRADE_JSON)"

# The Gradescope autograder (setup.sh, run_autograder and the course) in _build/gradescope/.
gradescope:
	$(PYTHON) tools/gradescope.py

clean:
	rm -rf _build student
