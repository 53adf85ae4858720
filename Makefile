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

# At most about 120 lines on the screen; the full tables go to files under $(DEMO)/, whose
# paths it prints.  `explain` (the prediction split into its terms) is used where this
# version has it, else `predict`.
table1_summary = grep -E '^(Table 1|[[:space:]]*(Geometric mean|Cross-kernel))' $(1) | sed -E '/^Table/!s/^ */  /; s/ {3,}/: /'
demo: setup
	@mkdir -p $(DEMO)
	@if [ -f sample_data/h100/measurements-fp64.sqlite.xz ] || [ -f sample_data/h100/measurements-fp64.sqlite ]; then \
	  echo "== What the shipped NVIDIA H100 data shows (sample_data/h100, both precisions) =="; \
	  echo "Table 1 of the unified linear model (non-negative fit), error summary (geometric"; \
	  echo "mean of |predicted - measured| / measured, as a fraction: 0.10 = 10 %):"; \
	  $(PY) -m workbench report --store sample_data/h100/measurements-fp64.sqlite \
	    --store sample_data/h100/unseen.sqlite \
	    --weights sample_data/h100/weights-linear-fp64-non-negative.json > $(DEMO)/h100-tables.txt; \
	  $(call table1_summary,$(DEMO)/h100-tables.txt); \
	  echo "every kernel and size, and Table 2 (the weights): $(DEMO)/h100-tables.txt"; \
	  echo "The same with the shipped default model (sample_data/h100/default-model.json), on the"; \
	  echo "two unseen sets, which no fit has seen (every kernel counted at every size and"; \
	  echo "group size; 1 min 36 s to 2 min 5 s on the 2-core dev machine, 2026-11-27; silent):"; \
	  $(PY) -m workbench report --store sample_data/h100/unseen.sqlite \
	    --store sample_data/h100/unseen2.sqlite --all-groups --weights sample_data/h100/$$($(PY) -c \
	    "import json; print(json.load(open('sample_data/h100/default-model.json'))['weights'])") \
	    > $(DEMO)/h100-default-unseen.txt; \
	  $(call table1_summary,$(DEMO)/h100-default-unseen.txt) | sed -n '/unseen kernels/,$$p'; \
	  echo "every unseen kernel, size and group size: $(DEMO)/h100-default-unseen.txt"; fi
	@echo; echo "== Predicting a kernel from its code alone, and why (the shipped default model) =="
	@$(PY) -m workbench explain finite_diff --param n=4096 --dtype float64 \
	  --store sample_data/h100/measurements-fp64.sqlite --plot $(DEMO)/roofline.html
	@echo; echo "== The catalog, and the symbolic properties of one kernel =="
	@$(PY) -m workbench kernels > $(DEMO)/kernels.txt
	@$(PY) -m workbench properties matmul_tiled --variant square --param n=1024,m=1024,l=1024 \
	  --group-size 16x16 > $(DEMO)/properties-matmul_tiled.txt
	@echo "the catalog: $(DEMO)/kernels.txt; matmul_tiled's counts: $(DEMO)/properties-matmul_tiled.txt"
	@echo; echo "== The mechanism live on this machine's CPU (pocl): calibrate, fit, report =="
	$(PY) -m workbench devices
	$(PY) -m workbench calibrate --quick --store $(DEMO)/pocl.sqlite --no-progress
	$(PY) -m workbench fit --store $(DEMO)/pocl.sqlite -o $(DEMO)/pocl-weights.json > $(DEMO)/pocl-fit.txt
	@head -n 1 $(DEMO)/pocl-fit.txt; echo "the weights: $(DEMO)/pocl-fit.txt"
	$(PY) -m workbench report --store $(DEMO)/pocl.sqlite --weights $(DEMO)/pocl-weights.json > $(DEMO)/pocl-tables.txt
	@awk '/^Table 2/ {exit} /^Table 1/ {print; next} /kernel \/ case/ || /^ *[a-z]+\. / || !NF {next} \
	  {v = $$NF; $$NF = ""; sub(/ +$$/, ""); sub(/^ +/, ""); printf "  %s: %s\n", $$0, v}' $(DEMO)/pocl-tables.txt; \
	 echo "every size and group shape, and Table 2 (the weights): $(DEMO)/pocl-tables.txt"
	@echo; echo "Read the pocl error above as a check of the mechanism, not as a model of this CPU:"; \
	 echo "the quick campaign times 2 sizes per kernel (the test kernels also at six group shapes),"; \
	 echo "8 runs each, and fits weights bounded below by zero, on a device whose time is"; \
	 echo "not a sum of per-operation costs (pocl vectorizes across work items and compiles each"; \
	 echo "group size anew). The H100 figures at the top are what the model does on the GPUs it"; \
	 echo "was made for."

# two workers (pytest-xdist): on a fresh clone on the 2-core dev machine the suite took
# 11 min 31 s with -n 2 (3,451 tests, 2026-11-28, 21:12 UTC, 2cce4e5; each notebook runs once;
# fresh clones earlier that day took 11 min 51 s, 11 min 3 s, 11 min 19 s and 13 min 50 s, runs of the last two days 8 to 15 minutes)
TEST_WORKERS ?= 2
test: setup browser
	$(PY) -m pytest -q -n $(TEST_WORKERS)

# JupyterLab on notebooks/ (the tour, one notebook per reproduced table or figure)
lab: setup
	$(PY) -m workbench lab

# docs/dashboard.png, the README's screenshot, taken from the real page in chromium
screenshot: setup browser
	$(PY) scripts/screenshot_dashboard.py --out docs/dashboard.png
	$(PY) scripts/screenshot_dashboard.py --explain-only --params n=4096

bench: setup
	$(PY) benchmarks/extraction.py

clean:
	rm -rf build .pytest_cache
