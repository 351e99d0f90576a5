"""Browser tests of the web console: Playwright driving Debian's chromium against the live app.

``scripts/test`` installs what they need (scripts/browser-setup); without Playwright or a
chromium they are not collected. ``MNEMO_SCREENSHOTS=<dir>`` saves the screenshots that
docs/console.md shows (``MNEMO_SCREENSHOTS=docs/img/console scripts/test tests/browser``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.seed import seed_bank

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
AVAILABLE = importlib.util.find_spec("playwright") is not None and Path(CHROMIUM).exists()
if not AVAILABLE:
    collect_ignore_glob = ["test_*.py"]

SCREENSHOTS = os.environ.get("MNEMO_SCREENSHOTS")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's chromium, by path (never a downloaded browser)."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """The 1280x800 window the console is designed for."""
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}}


def new_bank(http: httpx.Client) -> tuple[str, dict[str, Any]]:
    """A freshly seeded bank and what seeding made."""
    bank = f"c-{uuid.uuid4().hex[:10]}"
    return bank, seed_bank(http, bank)


@pytest.fixture(scope="module")
def seeded(http: httpx.Client) -> Iterator[tuple[str, dict[str, Any]]]:
    """One seeded bank shared by a module's read-only tests."""
    bank, made = new_bank(http)
    yield bank, made
    http.delete(f"/v1/default/banks/{bank}")


@pytest.fixture
def fresh(http: httpx.Client) -> Iterator[tuple[str, dict[str, Any]]]:
    """A seeded bank of its own, for a test that changes it."""
    bank, made = new_bank(http)
    yield bank, made
    http.delete(f"/v1/default/banks/{bank}")


def screenshot(page: Any, name: str) -> None:
    """Save the viewport as ``<MNEMO_SCREENSHOTS>/<name>.png``, palette-reduced to stay small."""
    if not SCREENSHOTS:
        return
    target = Path(SCREENSHOTS) / f"{name}.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target))
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(target) as image:
        small = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        small.save(target, optimize=True)
