"""A peer's own tests as the yardstick: Hindsight's client tests against a live Mnemo.

``tests/test_main_operations.py`` ships in the ``hindsight-client`` 1.1.0 source distribution on
the package index; it is fetched with pip (cached under ``.cache/``), run unchanged in a
subprocess with ``HINDSIGHT_API_URL`` pointing at the test server, and its results are read from
JUnit XML. Every test passes except the two that ask reflect for structured output, which needs
an LLM (this server has none: a 400 that says so).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CACHE = ROOT / ".cache" / "hindsight-client-sdist"
VERSION = "1.1.0"
SUITE = "tests/test_main_operations.py"
NEEDS_LLM = {
    "TestReflect::test_reflect_with_structured_output",
    "TestAsyncReflect::test_areflect_with_structured_output",
}


def _sources() -> Path:
    """The unpacked source distribution (downloaded once)."""
    unpacked = CACHE / f"hindsight_client-{VERSION}"
    if (unpacked / SUITE).exists():
        return unpacked
    CACHE.mkdir(parents=True, exist_ok=True)
    fetched = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
            str(CACHE),
            f"hindsight-client=={VERSION}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if fetched.returncode != 0:
        pytest.skip(f"hindsight-client {VERSION} sources not available: {fetched.stderr[-300:]}")
    with tarfile.open(CACHE / f"hindsight_client-{VERSION}.tar.gz") as archive:
        archive.extractall(CACHE, filter="data")
    return unpacked


@pytest.mark.slow
def test_hindsights_own_client_tests_pass_except_structured_output(
    base_url: str, tmp_path: Path
) -> None:
    sources = _sources()
    report = tmp_path / "junit.xml"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--junitxml={report}",
            SUITE,
        ],
        cwd=sources,
        env={**os.environ, "HINDSIGHT_API_URL": base_url},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    outcomes: dict[str, set[str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
        kinds = outcomes.setdefault(name, set())
        for child in case:
            if child.tag == "failure":
                kinds.add("failed")
            elif child.tag == "error":
                # The suite's sync client fixture closes its aiohttp session in another event
                # loop after async tests: a teardown error of the client, whatever the server.
                message = child.get("message", "")
                kinds.add("teardown" if "teardown" in message else "error")
    assert len(outcomes) == 37, sorted(outcomes)
    broken = {n for n, kinds in outcomes.items() if kinds & {"failed", "error"}}
    passed = set(outcomes) - broken
    assert broken == NEEDS_LLM, run.stdout[-4000:]
    assert len(passed) == 35
