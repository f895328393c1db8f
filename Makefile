# gammonwatch: the common tasks. `make demo` and `make test` do all set-up on a fresh Debian machine.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Debian packages: GNU Backgammon (peer checks), Chromium (page tests), PostgreSQL (storage tests), EGL/Mesa (simulator rendering)
DEBS := gnubg chromium postgresql libegl1 libegl-mesa0 libgl1 libglu1-mesa libosmesa6 fonts-dejavu-core
export PYOPENGL_PLATFORM ?= egl

.PHONY: all test lint typecheck pytest demo bench system-deps venv clean

all: test

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,sim,postgres]'
	# pyrender pins PyOpenGL 3.1.0, whose OSMesa/EGL import fails; 3.1.7 works (SIMULATOR-NOTES.md)
	$(PY) -m pip install --quiet 'PyOpenGL==3.1.7'
	touch $(STAMP)

venv: $(STAMP)

# Installs only what is missing; needs root (CI and the developers' machines run as root).
system-deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

lint: $(STAMP)
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy rules vision calibration server sim

pytest: $(STAMP) system-deps
	$(VENV)/bin/pytest -q

test: system-deps $(STAMP) lint typecheck pytest

demo: system-deps $(STAMP)
	$(VENV)/bin/gammonwatch demo

bench: system-deps $(STAMP)
	$(PY) scripts/bench.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
