"""A live Mnemo whose LLM modes talk to a scripted OpenAI-compatible server (module-scoped).

Import the fixtures into a test module: ``from tests.support.llm_app import llm_http,
llm_server``; ``STAY`` is a scripted extraction with a causal link between its two facts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_settings
from tests.support.fake_openai import FakeOpenAIServer
from tests.support.live_server import live_server

STAY_TEXT = (
    "Yesterday Sarah Chen flew to Lisbon for the Ocean Probe 1 launch. "
    "Because the launch slipped, she stayed until Friday."
)
STAY = {
    "facts": [
        {
            "what": "The Ocean Probe 1 launch slipped.",
            "fact_kind": "event",
            "fact_type": "world",
            "entities": [{"name": "Ocean Probe 1", "type": "product"}],
        },
        {
            "what": "Sarah Chen stayed in Lisbon until Friday 24 May 2024.",
            "fact_kind": "event",
            "occurred_start": "2024-05-19",
            "occurred_end": "2024-05-24",
            "fact_type": "world",
            "entities": [
                {"name": "Sarah Chen", "type": "person"},
                {"name": "Lisbon", "type": "place"},
            ],
            "causal_relations": [0],
        },
    ]
}


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeOpenAIServer]:
    """The scripted OpenAI-compatible endpoint."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def llm_http(
    llm_server: FakeOpenAIServer, test_neo4j: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    """A client of a Mnemo configured with the scripted endpoint."""
    settings = make_settings(
        Path(tmp_path_factory.mktemp("llm-curate-data")),
        llm_base_url=llm_server.base_url,
        llm_api_key="test-key",
        llm_model="fake-model",
        llm_timeout_s=5.0,
        llm_max_retries=1,
    )
    with live_server(settings) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client
