"""What the browser tests share: the dashboard driver of ``scripts/screenshot_dashboard.py``
(loaded from its file: scripts/ is no package), the laptop screens the dashboard must fit,
and the check that Playwright and chromium are here (a skip, or under CI a failure)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the laptop screens the dashboard must fit (px)
LAPTOPS = ((1366, 768), (1280, 800))


def _driver():
    spec = importlib.util.spec_from_file_location(
        "screenshot_dashboard", ROOT / "scripts" / "screenshot_dashboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


driver = _driver()


def require_browser(test: str) -> None:
    """Skip ``test`` (fail it under CI, env ``CI``) without Playwright or chromium."""
    missing = []
    if importlib.util.find_spec("playwright") is None:
        missing.append("Playwright (pip install playwright; scripts/setup_env.sh does)")
    if driver.find_chromium() is None:
        missing.append("chromium (apt-get install --no-install-recommends chromium; "
                       "scripts/ensure_chromium.sh does)")
    if missing:
        message = f"the {test} needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(message + " (required under CI)")
        pytest.skip(message)
