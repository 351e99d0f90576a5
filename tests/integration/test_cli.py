"""The real ``mnemo`` command line, run as subprocesses against the real test server.

Set-ups that are not what a test is about go through the typed client (faster than a process);
everything asserted on is what the command printed and the exit status.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from app.client import MnemoClient
from app.config import Settings
from app.curate.schemas.banks import BankUpdate
from app.retain.schemas import EntityHint, RetainItem
from tests.conftest import neo4j_test_env
from tests.support.cli import Cli


@pytest.fixture(scope="module")
def cli(base_url: str, settings: Settings) -> Cli:
    return Cli(base_url, env=neo4j_test_env())


@pytest.fixture
def client(base_url: str) -> Iterator[MnemoClient]:
    with MnemoClient(base_url) as c:
        yield c


def hint(name: str, kind: str = "person") -> EntityHint:
    return EntityHint(text=name, type=kind)


def test_banks_create_show_list_and_delete_with_confirmation(cli: Cli, bank_id: str) -> None:
    created = cli.json("banks", "create", bank_id, "--name", "CLI bank", "--mode", "chunks")
    assert created["id"] == bank_id and created["retain_extraction_mode"] == "chunks"

    shown = cli.run("banks", "show", bank_id).stdout
    assert "CLI bank" in shown and "chunks" in shown
    assert bank_id in [b["id"] for b in cli.json("banks", "list")]
    assert bank_id in cli.run("banks", "list").stdout

    refused = cli.run("banks", "delete", bank_id, expect=2)  # no terminal to ask, no --yes
    assert "--yes" in refused.stderr
    assert "deleted bank" in cli.run("banks", "delete", bank_id, "--yes").stdout

    missing = cli.run("banks", "show", bank_id, expect=1)
    assert "404" in missing.stderr and bank_id in missing.stderr


def test_retain_from_text_file_and_stdin_then_list_and_recall(
    cli: Cli, bank: str, tmp_path: Path
) -> None:
    said = cli.run(
        "retain",
        "Caroline moved to Lisbon in March 2023. She works at Acme.",
        "--bank",
        bank,
        "--document-id",
        "notes/1",
        "--tag",
        "personal",
        "--tag",
        "work",
        "--context",
        "onboarding chat",
        "--timestamp",
        "2023-05-08T13:56:00Z",
        "--metadata",
        "source=cli",
        "--entity",
        "Caroline:person",
    ).stdout
    assert "document notes/1: created, 2 memories" in said

    path = tmp_path / "trip.txt"
    path.write_text("Melanie visited Kyoto with her sister in April 2024.", encoding="utf-8")
    assert "created" in cli.run("retain", "--bank", bank, "--file", str(path)).stdout
    piped = cli.run(
        "retain", "--bank", bank, "--document-id", "piped", input="Bruno adopted a cat named Miso."
    )
    assert "document piped: created, 1 memories" in piped.stdout
    again = cli.run(
        "retain", "Bruno adopted a cat named Miso.", "-b", bank, "--document-id", "piped"
    )
    assert "document piped: unchanged" in again.stdout

    page = cli.json("memories", "list", "--bank", bank)
    assert page["total"] == 4
    lisbon = next(m for m in page["items"] if "Lisbon" in m["text"])
    assert lisbon["tags"] == ["personal", "work"] and lisbon["context"] == "onboarding chat"
    assert lisbon["metadata"] == {"source": "cli"} and lisbon["document_id"] == "notes/1"
    assert lisbon["mentioned_at"].startswith("2023-05-08T13:56:00")
    assert "Caroline" in {e["name"] for e in lisbon["mentions"]}
    assert lisbon["occurred_start"].startswith("2023-03-01")

    listed = cli.run("memories", "list", "--bank", bank, "--document-id", "piped").stdout
    assert "Bruno adopted a cat named Miso." in listed and "Lisbon" not in listed

    table = cli.run("recall", "Where did Caroline move?", "--bank", bank).stdout
    assert table.splitlines()[0].split()[:3] == ["#", "SCORE", "TYPE"]
    assert "Caroline moved to Lisbon" in table.splitlines()[1]
    answer = cli.json("recall", "Where did Caroline move?", "--bank", bank, "--max-tokens", "50")
    assert answer["results"][0]["text"] == "Caroline moved to Lisbon in March 2023."
    typed = cli.json("recall", "cat", "--bank", bank, "--type", "experience")
    assert typed["results"] == []

    empty = cli.run("retain", "   ", "--bank", bank, expect=2)
    assert "empty" in empty.stderr
    bad_time = cli.run("retain", "x", "--bank", bank, "--timestamp", "yesterday", expect=2)
    assert "ISO 8601" in bad_time.stderr


def test_retain_async_answers_an_operation_that_completes(cli: Cli, bank: str) -> None:
    accepted = cli.run(
        "retain", "Dmitri repaired the lighthouse.", "--bank", bank, "--async"
    ).stdout
    operation_id = accepted.split()[1]
    assert accepted.startswith("operation ") and "mnemo operations" in accepted
    deadline = time.monotonic() + 60
    while (op := cli.json("operations", "--bank", bank, operation_id))["status"] != "completed":
        assert op["status"] in ("pending", "processing") and time.monotonic() < deadline, op
        time.sleep(0.5)
    assert op["memories_count"] == 1
    assert operation_id in cli.run("operations", "--bank", bank).stdout


def test_memories_show_invalidate_restore_and_history(
    cli: Cli, client: MnemoClient, bank: str
) -> None:
    answer = client.retain(
        bank,
        [
            RetainItem(
                content="Priya Raman leads the Orion project.",
                entities=[hint("Priya Raman"), hint("Orion", "project")],
            )
        ],
    )
    [memory_id] = answer.memory_ids

    shown = cli.run("memories", "show", memory_id, "--bank", bank).stdout
    assert "Priya Raman leads the Orion project." in shown
    assert "ENTITY" in shown and "Orion" in shown

    out = cli.run(
        "memories", "invalidate", memory_id, "--bank", bank, "--reason", "Priya left"
    ).stdout
    assert out.strip() == f"memory {memory_id}: invalidated"
    invalid = cli.json("memories", "list", "--bank", bank, "--state", "invalidated")
    assert [(m["id"], m["state_reason"]) for m in invalid["items"]] == [(memory_id, "Priya left")]
    assert cli.json("recall", "Who leads Orion?", "--bank", bank)["results"] == []

    cli.run("memories", "restore", memory_id, "--bank", bank, "--reason", "she came back")
    assert cli.json("recall", "Who leads Orion?", "--bank", bank)["results"][0]["id"] == memory_id
    history = cli.json("memories", "history", memory_id, "--bank", bank)
    assert [(r["kind"], r["reason"]) for r in history["items"]] == [
        ("invalidate", "Priya left"),
        ("restore", "she came back"),
    ]
    assert "invalidate" in cli.run("memories", "history", memory_id, "--bank", bank).stdout

    missing = cli.run("memories", "show", "no-such-memory", "--bank", bank, expect=1)
    assert "404" in missing.stderr


def namesakes(client: MnemoClient, bank: str) -> dict[str, Any]:
    """Alex Kim (two facts) and Alex Moreno, then a bare "Alex": a tie filed for review."""
    client.put_bank(bank, BankUpdate(retain_extraction_mode="chunks"))
    facts = [
        ("Alex Kim planned the Acme sprint with Bo Ng.", ["Alex Kim", "Bo Ng"], "09:00"),
        ("Alex Kim demoed the Acme app.", ["Alex Kim"], "09:30"),
        ("Alex Moreno audited Globex with Cy Ruiz.", ["Alex Moreno", "Cy Ruiz"], "10:00"),
        ("Alex called about the invoice.", ["Alex"], "11:00"),
    ]
    ids = []
    for text, people, at in facts:
        item = RetainItem(
            content=text,
            timestamp=datetime.fromisoformat(f"2024-05-01T{at}:00+00:00"),
            entities=[hint(p) for p in people],
        )
        ids.extend(client.retain(bank, [item]).memory_ids)
    entity = {
        e.name: e.id for m in ids for e in client.memory(bank, m).mentions if e.type == "person"
    }
    return {"ids": ids, **entity}


def test_entities_list_show_reviews_decide_merge_revert_split_and_graph(
    cli: Cli, client: MnemoClient, bank: str
) -> None:
    s = namesakes(client, bank)
    names = {e["name"] for e in cli.json("entities", "list", "--bank", bank)["items"]}
    assert {"Alex Kim", "Alex Moreno", "Alex", "Bo Ng", "Cy Ruiz"} <= names
    assert "Alex Kim" in cli.run("entities", "list", "--bank", bank, "--name", "Alex Kim").stdout
    shown = cli.run("entities", "show", s["Alex Kim"], "--bank", bank).stdout
    assert "Alex Kim" in shown and "Bo Ng" in shown  # a name and a neighbour

    reviews = cli.json("entities", "reviews", "--bank", bank)
    assert reviews["total"] == 2
    moreno = next(
        r
        for r in reviews["items"]
        if {r["entity_a"]["id"], r["entity_b"]["id"]} == {s["Alex"], s["Alex Moreno"]}
    )
    decided = cli.run(
        "entities", "decide", moreno["id"], "different", "--bank", bank, "--reason", "not him"
    ).stdout
    assert decided.strip() == f"review {moreno['id']}: different"
    assert cli.json("entities", "reviews", "--bank", bank, "--status", "different")["total"] == 1

    merged = cli.run(
        "entities", "merge", s["Alex"], "--into", s["Alex Kim"], "--bank", bank, "--reason", "Kim"
    ).stdout
    assert merged.startswith("merge ") and s["Alex Kim"] in merged
    records = cli.json("entities", "merges", "--bank", bank, "--kind", "merge")["items"]
    assert [(r["gone"], r["keep"]) for r in records] == [(s["Alex"], s["Alex Kim"])]
    assert "Alex → Alex Kim" in cli.run("entities", "merges", "--bank", bank).stdout
    reverted = cli.run(
        "entities", "revert", records[0]["id"], "--bank", bank, "--reason", "was wrong"
    ).stdout
    assert reverted.startswith("revert ")
    assert s["Alex"] in {e["id"] for e in cli.json("entities", "list", "--bank", bank)["items"]}

    split = cli.json(
        "entities",
        "split",
        s["Alex Kim"],
        "--memory",
        s["ids"][1],
        "--name",
        "Alex Kim (demo)",
        "--reason",
        "another Alex Kim",
        "--bank",
        bank,
    )
    assert [e["name"] for e in split["entities"]] == ["Alex Kim", "Alex Kim (demo)"]

    edges = cli.run("entities", "graph", "--bank", bank).stdout
    assert "Alex Kim" in edges and "Bo Ng" in edges
    missing = cli.run("entities", "show", "no-such-entity", "--bank", bank, expect=1)
    assert "404" in missing.stderr


def test_import_retains_in_batches_with_progress_and_reports_bad_lines(
    cli: Cli, bank: str, tmp_path: Path
) -> None:
    good = [
        {"content": f"Visitor {n} signed the guest book.", "document_id": f"guest/{n}"}
        for n in range(7)
    ]
    lines = [msgspec.json.encode(g).decode() for g in good[:3]]
    lines += [
        "{not json",  # line 4
        '{"document_id": "no-content"}',  # line 5: not a retain item
        "",  # blank lines are skipped
        '{"content": "   ", "document_id": "blank"}',  # line 7: the server refuses it
    ]
    lines += [msgspec.json.encode(g).decode() for g in good[3:]]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    done = cli.run("import", str(path), "--bank", bank, "--batch-size", "3", expect=1)
    assert "imported 7 of 8 items" in done.stdout
    progress = [line for line in done.stderr.splitlines() if line.startswith("retain")]
    assert progress and "100%" in progress[-1] and "10/10" in progress[-1]
    failures = [line for line in done.stderr.splitlines() if line.startswith("line ")]
    assert [f.split(":")[0] for f in failures] == ["line 4", "line 5", "line 7 (document blank)"]
    assert "content" in failures[1] and "empty" in failures[2]
    documents = cli.json("documents", "list", "--bank", bank)
    assert sorted(d["id"] for d in documents["items"]) == sorted(g["document_id"] for g in good)

    # Importing again changes nothing (same ids, same content); stdin works too.
    clean = "\n".join(msgspec.json.encode(g).decode() for g in good)
    report = cli.json("import", "-", "--bank", bank, input=clean)
    assert (report["retained"], report["failed"]) == (7, [])
    assert cli.json("memories", "list", "--bank", bank)["total"] == 7

    missing = cli.run("import", str(path), "--bank", "no-such-bank", expect=1)
    assert "404" in missing.stderr


def test_documents_show_and_delete(cli: Cli, client: MnemoClient, bank: str) -> None:
    client.retain(bank, [RetainItem(content="Ines sold the boat.", document_id="log/boat")])
    assert "Ines sold the boat." in cli.run("documents", "show", "log/boat", "--bank", bank).stdout
    assert "log/boat" in cli.run("documents", "list", "--bank", bank).stdout
    out = cli.run("documents", "delete", "log/boat", "--bank", bank).stdout
    assert out.startswith("deleted document log/boat: 1 memories")


def test_cypher_runs_analytics_queries_against_neo4j(
    cli: Cli, client: MnemoClient, bank: str
) -> None:
    client.retain(
        bank,
        [
            RetainItem(
                content="Noor Haddad met Tomas Berg at the harbour.",
                entities=[hint("Noor Haddad"), hint("Tomas Berg")],
            )
        ],
    )
    listing = cli.run("cypher", "--list", url=False).stdout
    assert "overview" in listing and "top_entities" in listing
    rows = cli.json("cypher", "overview", "--bank", bank, url=False)
    assert {"section", "key", "count"} <= set(rows[0])
    top = cli.run("cypher", "top_entities", "--bank", bank, "--param", "limit=5", url=False).stdout
    assert top.splitlines()[0].split()[:2] == ["ID", "NAME"]
    assert "Noor Haddad" in top and "Tomas Berg" in top

    unknown = cli.run("cypher", "no_such_query", url=False, expect=2)
    assert "unknown analytics query" in unknown.stderr
    missing = cli.run("cypher", "top_entities", url=False, expect=2)
    assert "bank_id is required" in missing.stderr


def test_an_unreachable_server_is_a_clear_error(cli: Cli) -> None:
    done = cli.run("banks", "list", "--url", "http://127.0.0.1:9", url=False, expect=1)
    assert "cannot reach the Mnemo API" in done.stderr


def test_reflect_prints_the_cited_answer_and_the_client_reads_mental_models(
    cli: Cli, client: MnemoClient, bank: str
) -> None:
    from app.reflect.schemas import CreateMentalModelRequest

    [memory_id] = client.retain(
        bank, [RetainItem(content="Caroline adopted a grey kitten named Pebble.")]
    ).memory_ids

    printed = cli.run("reflect", "What pet does Caroline have?", "-b", bank).stdout
    answer = cli.json("reflect", "What pet does Caroline have?", "-b", bank, "--budget", "low")
    created = client.create_mental_model(
        bank, CreateMentalModelRequest(name="Pets", source_query="What pets does Caroline have?")
    )
    deadline = time.monotonic() + 60
    while client.operation(bank, created.operation_id).status not in ("completed", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.1)

    assert f"Pebble. [{memory_id}]" in printed
    assert [m["id"] for m in answer["based_on"]["memories"]] == [memory_id]
    model = client.get_mental_model(bank, created.mental_model_id)
    assert f"[{memory_id}]" in (model.content or "")
    assert [v.version for v in client.mental_model_history(bank, created.mental_model_id)] == [1]
    assert client.reflect(bank, "pets").based_on is not None
