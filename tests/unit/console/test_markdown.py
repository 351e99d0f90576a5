from __future__ import annotations

from app.console.markdown import to_html
from app.console.session import _next


def test_markdown_renders_headings_lists_and_emphasis() -> None:
    html = str(to_html("## Work\n\n- **Acme** since 2021\n- Globex"))
    assert "<h2>Work</h2>" in html and "<strong>Acme</strong>" in html and "<li>Globex</li>" in html


def test_markdown_never_passes_raw_html_or_script_links() -> None:
    html = str(
        to_html("<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=y>")
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "href=" not in html and "<img" not in html


def test_sign_in_returns_only_to_console_paths() -> None:
    assert _next("/console/banks/a/") == "/console/banks/a/"
    for hostile in ("https://evil.example/", "//evil.example/console/", "/console//evil", None, ""):
        assert _next(hostile) == "/console/"
