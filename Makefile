# `make setup` creates .venv, installs everything and builds the book; `make test` runs all tests.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: setup book test export clean

setup: book

$(VENV)/installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -r requirements.txt
	touch $@

book: $(VENV)/installed
	$(BIN)/jupyter-book build . -W -n --keep-going

test: $(VENV)/installed
	$(BIN)/pytest --nbval --nbval-current-env

export: $(VENV)/installed
	$(BIN)/python tools/export_engine.py

clean:
	rm -rf _build
