"""Recover one JSON value from a weak model's answer (pure, no I/O).

Small local models wrap JSON in prose, code fences and ``<think>`` blocks, and write trailing
commas, single quotes, Python literals and unquoted keys. Every structured LLM call reads its
answer through :func:`repair_json` before it gives up on it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Final

_THINK_RE: Final = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE_RE: Final = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_LITERALS: Final = {"True": "true", "False": "false", "None": "null"}


def repair_json(text: str) -> str | None:
    """Recover one JSON value from a weak model's answer, or None when there is none.

    Handles, in order: ``<think>`` blocks of reasoning models, Markdown code fences, prose
    around the JSON, then, outside strings, trailing commas, single-quoted strings, Python
    ``True``/``False``/``None``, unquoted keys and ``//`` comments. Raw newlines inside strings are
    accepted. The result is compact, valid JSON.
    """
    text = _THINK_RE.sub("", text)
    for candidate in _json_candidates(text):
        for attempt in (candidate, _normalise_json(candidate)):
            try:
                value = json.loads(attempt, strict=False)
            except json.JSONDecodeError:
                continue
            if isinstance(value, (dict, list)):
                return json.dumps(value, ensure_ascii=False)
    return None


def _json_candidates(text: str) -> Iterator[str]:
    """Spans that may hold the JSON: fenced blocks, the last first, then the whole text.

    The last block wins, as in instructor: a model's final answer comes after any JSON it
    quoted from the text while reasoning.
    """
    for block in reversed(_FENCE_RE.findall(text)):
        span = _outer_span(block)
        if span is not None:
            yield span
    span = _outer_span(text)
    if span is not None:
        yield span


def _outer_span(text: str) -> str | None:
    """From the first ``{`` or ``[`` to the last matching closer (prose around it dropped)."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    return text[start : end + 1] if end > start else None


def _normalise_json(text: str) -> str:
    """Rewrite JSON-like text into JSON, touching nothing inside double-quoted strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = _scan_double_quoted(text, i)
            out.append(text[i:end])
            i = end
        elif char == "'":
            literal, i = _single_to_double_quoted(text, i)
            out.append(literal)
        elif char == ",":
            i += 1
            if _next_significant(text, i) not in ("}", "]"):
                out.append(",")  # a trailing comma before a closer is dropped
        elif char == "/" and text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
        elif char.isalpha() or char == "_":
            end = i
            while end < n and (text[end].isalnum() or text[end] == "_"):
                end += 1
            word = text[i:end]
            if _next_significant(text, end) == ":" and word not in _LITERALS:
                out.append(json.dumps(word))  # an unquoted key
            else:
                out.append(_LITERALS.get(word, word))
            i = end
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _scan_double_quoted(text: str, start: int) -> int:
    """Index just past the string that opens at ``start`` (or the end of the text)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _single_to_double_quoted(text: str, start: int) -> tuple[str, int]:
    """Turn a single-quoted string into a JSON string literal; return it and the next index.

    The string ends at a quote followed by a JSON delimiter, so that apostrophes inside
    ("Sarah's dog") stay part of it.
    """
    out: list[str] = []
    i, n = start + 1, len(text)
    while i < n:
        char = text[i]
        if char == "\\" and i + 1 < n:
            nxt = text[i + 1]
            out.append("'" if nxt == "'" else "\\" + nxt)
            i += 2
            continue
        if char == "'" and _next_significant(text, i + 1) in (",", ":", "}", "]", ""):
            return '"' + "".join(out) + '"', i + 1
        out.append('\\"' if char == '"' else char)
        i += 1
    return '"' + "".join(out) + '"', n


def _next_significant(text: str, start: int) -> str:
    """Return the next non-whitespace character from ``start`` ("" at the end)."""
    i = start
    while i < len(text) and text[i].isspace():
        i += 1
    return text[i] if i < len(text) else ""
