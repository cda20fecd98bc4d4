"""mcp_lesson.core: the lessons' exercise cells, exported from the masters, are the
package's own code. The committed export must be what `make export`
writes from the masters now, and the package must use it."""

from pathlib import Path

import mcp_lesson
from mcp_lesson import core
from mcp_lesson.core import classification as core_classification
from mcp_lesson.core import errors as core_errors
from mcp_lesson.core import messages as core_messages
from mcp_lesson.exercises.core_export import export_core
from mcp_lesson.rules import classification, messages

ROOT = Path(__file__).resolve().parents[2]
CORE = Path(core.__file__).parent


def test_the_committed_core_is_the_masters_export(tmp_path):
    fresh = export_core(ROOT / "notebooks", tmp_path / "core")
    written = {path.name: path.read_text(encoding="utf-8") for path in fresh.glob("*.py")}
    committed = {path.name: path.read_text(encoding="utf-8") for path in CORE.glob("*.py")}
    assert sorted(committed) == sorted(written), "run `make export`"
    for name, text in written.items():
        assert committed[name] == text, (
            f"mcp_lesson/core/{name} drifted from the masters: run `make export`"
        )


def test_the_package_s_builders_are_the_lessons():
    assert mcp_lesson.create_request is messages.create_request is core_messages.create_request
    assert mcp_lesson.error_response is messages.error_response is core_errors.error_response
    assert messages.is_integer is core_messages.is_integer
    assert messages.is_valid_id is core_messages.is_valid_id


def test_classify_and_reply_for_are_the_lessons_inside_a_thin_layer(monkeypatch):
    """Counted, not assumed: a plain message goes through lesson 03's classify and an
    invalid one through lesson 04's reply_for."""
    calls = []
    real_classify, real_reply = classification._lessons_classify, classification._lessons_reply_for
    monkeypatch.setattr(
        classification,
        "_lessons_classify",
        lambda msg: calls.append("classify") or real_classify(msg),
    )
    monkeypatch.setattr(
        classification,
        "_lessons_reply_for",
        lambda msg: calls.append("reply_for") or real_reply(msg),
    )
    assert classification.classify({"jsonrpc": "2.0", "id": 1, "method": "ping"}) == (
        "request",
        None,
    )
    assert classification.reply_for({"jsonrpc": "2.0", "id": 2, "method": 3})["id"] == 2
    assert calls[0] == "classify" and "reply_for" in calls


#: The standard library's modules the lessons' exported cells may import.
STANDARD = ("json", "base64", "math", "http.server", "itertools", "secrets", "sys", "threading")


def test_the_core_holds_no_solution_markers_and_imports_only_the_codes():
    for path in CORE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "### BEGIN SOLUTION" not in text and "#| export" not in text, path.name
        imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
        # the standard library's modules the lessons name (lesson 11's plumbing: an HTTP server)
        assert all(
            line.startswith(("from .", "from mcp_lesson import "))
            or line in {f"import {name}" for name in STANDARD}
            for line in imports
        ), (path.name, imports)
    assert core_classification.classify.__module__ == "mcp_lesson.core.classification"
