#!/usr/bin/env bash
# Create or update the virtual environment with the pinned, working dependency set.
# islpy-barvinok provides the same `islpy` module built with barvinok, so loopy's counts
# are exact piecewise quasi-polynomials; it must end up installed over plain islpy, which
# pip installs for loopy (pyproject.toml says why it is not a dependency there).  The
# requirement is workbench.properties.counting.ISLPY_BARVINOK, the line the workbench
# prints when it finds plain islpy; tests/test_package.py keeps the two alike.
set -euo pipefail
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# [test] brings Playwright for the browser test; it drives Debian's chromium
# (scripts/ensure_chromium.sh), so Playwright's own browsers are never downloaded.  It
# also brings setuptools>=77, with which tests/test_package.py builds the wheel offline.
"$VENV/bin/python" -m pip install -q -e ".[test,ui]"
"$VENV/bin/python" -m pip install -q --no-deps --force-reinstall "islpy-barvinok==2025.2.5.post1"
"$VENV/bin/python" - <<'PY'
import islpy
if not hasattr(islpy.Set, "card"):
    raise SystemExit("islpy was not built with barvinok: counts would be over-estimates")
import playwright.sync_api  # noqa: F401 - the browser test's driver
print("environment ready: islpy with barvinok", islpy.__version__)
PY
