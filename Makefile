# Two commands do all the set-up on a fresh machine:
#   make demo   - the main job on the embedded default (pocl CPU device + shipped data)
#   make test   - the test suite
# Both create or update the project's virtual environment (.venv) first.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DEMO   := build/demo

.PHONY: setup opencl browser demo test lab screenshot bench clean

setup: $(STAMP) opencl

$(STAMP): pyproject.toml scripts/setup_env.sh
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/setup_env.sh
	touch $(STAMP)

# Debian's pocl (the pocl wheel fails on these CPUs); installed when we are root.
opencl:
	@bash scripts/ensure_pocl.sh

# Debian's chromium, for the browser test (tests/test_browser.py); installed when we are root.
browser:
	@bash scripts/ensure_chromium.sh

demo: setup
	@mkdir -p $(DEMO)
	$(PY) -m workbench kernels
	$(PY) -m workbench properties matmul_tiled --variant square --param n=1024,m=1024,l=1024 --group-size 16x16
	$(PY) -m workbench devices
	$(PY) -m workbench calibrate --quick --store $(DEMO)/pocl.sqlite --no-progress
	$(PY) -m workbench fit --store $(DEMO)/pocl.sqlite -o $(DEMO)/pocl-weights.json
	$(PY) -m workbench report --store $(DEMO)/pocl.sqlite --weights $(DEMO)/pocl-weights.json
	@if [ -f sample_data/h100/measurements.sqlite ]; then \
	  echo "== shipped NVIDIA H100 data =="; \
	  $(PY) -m workbench report --store sample_data/h100/measurements.sqlite \
	    --weights sample_data/h100/weights-linear.json; fi

test: setup browser
	$(PY) -m pytest -q

# JupyterLab on notebooks/ (the tour, one notebook per reproduced table or figure)
lab: setup
	$(PY) -m workbench lab

# docs/dashboard.png, the README's screenshot, taken from the real page in chromium
screenshot: setup browser
	$(PY) scripts/screenshot_dashboard.py --out docs/dashboard.png

bench: setup
	$(PY) benchmarks/extraction.py

clean:
	rm -rf build .pytest_cache
