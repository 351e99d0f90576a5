"""Settings come from MNEMO_* variables only, and the README documents every one of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import SettingsError, load_settings, settings_fields

README = Path(__file__).resolve().parents[2] / "README.md"


def test_values_are_parsed_by_type() -> None:
    settings = load_settings(
        {"MNEMO_PORT": "9000", "MNEMO_RECONCILE_ON_START": "false", "MNEMO_LLM_TIMEOUT_S": "2.5"}
    )
    assert settings.port == 9000
    assert settings.reconcile_on_start is False
    assert settings.llm_timeout_s == 2.5


def test_empty_value_keeps_the_embedded_default() -> None:
    settings = load_settings({"MNEMO_NEO4J_URI": ""})
    assert settings.uses_local_neo4j
    assert settings.bolt_uri == "bolt://127.0.0.1:7687"


def test_unknown_setting_is_an_error_not_a_silent_default() -> None:
    with pytest.raises(SettingsError, match="MNEMO_NEO4J_URL"):
        load_settings({"MNEMO_NEO4J_URL": "bolt://elsewhere:7687"})


def test_wrong_type_names_the_setting() -> None:
    with pytest.raises(SettingsError, match="port"):
        load_settings({"MNEMO_PORT": "eighty"})


def test_other_environment_variables_are_ignored() -> None:
    assert load_settings({"PATH": "/bin", "HOME": "/root"}).port == 8888


def test_readme_documents_every_setting() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [
        f"MNEMO_{name.upper()}" for name in settings_fields() if f"MNEMO_{name.upper()}" not in text
    ]
    assert missing == []
