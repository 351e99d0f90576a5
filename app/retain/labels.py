"""Caller-supplied entities typed with a bank's controlled vocabulary (``entity_labels``).

A mention whose type is a label's name is a value of that vocabulary and resolves by exact value
only (app/resolve). When the label lists its ``values``, a value outside them is a client error,
refused before anything is written (a typo would otherwise become a new vocabulary value that
nothing else ever matches); when ``multiple`` is false, one item carries at most one value.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.banks import EntityLabel
from app.domain.names import name_key
from app.errors import InvalidInput
from app.retain.schemas import RetainItem


def check_entity_labels(labels: Sequence[EntityLabel], items: Sequence[RetainItem]) -> None:
    """Raise InvalidInput naming the item and entity whose label value is not allowed."""
    if not labels:
        return
    by_name = {label.name.casefold(): label for label in labels}
    allowed = {
        name: {name_key(v) for v in label.values} for name, label in by_name.items() if label.values
    }
    for i, item in enumerate(items):
        seen: dict[str, str] = {}
        for j, entity in enumerate(item.entities or ()):
            label = by_name.get((entity.type or "").casefold())
            if label is None:
                continue
            field = f"$.items[{i}].entities[{j}]"
            key = name_key(entity.text)
            values = allowed.get(label.name.casefold())
            if values is not None and key not in values:
                raise InvalidInput(
                    f"{field}: {entity.text!r} is not a value of label {label.name!r} "
                    f"(allowed: {', '.join(label.values)})",
                    extra={"field": field, "label": label.name, "value": entity.text},
                )
            first = seen.setdefault(label.name, key)
            if first != key and not label.multiple:
                raise InvalidInput(
                    f"{field}: label {label.name!r} takes one value per item (multiple is false)",
                    extra={"field": field, "label": label.name, "value": entity.text},
                )
