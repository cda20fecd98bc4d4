"""The rules of the tap's audit as the specification states them (mcp_lesson/tap/citations.py):
the maintainer's guide shows each with its keyword, and each sentence is the page's own, where a
checkout of the specification is at hand.
"""

import re
import subprocess
from pathlib import Path

import pytest

from mcp_lesson.tap.citations import JSON_RPC, RULES, address, table

ROOT = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror/modelcontextprotocol+modelcontextprotocol/repo")


def test_the_guide_shows_each_rule_with_its_keyword():
    guide = (ROOT / "docs" / "maintaining.md").read_text(encoding="utf-8")
    opening, closing = "<!-- tap rules -->\n", "<!-- end of tap rules -->"
    shown = guide[guide.index(opening) + len(opening) : guide.index(closing)]
    assert shown == table(), (
        "docs/maintaining.md's table of the tap's rules is not citations.table():\n" + table()
    )
    for name, rule in RULES.items():
        row = next(row for row in shown.splitlines() if row.startswith(f"| `{name}` |"))
        assert row.split(" | ")[1] == rule.keyword


def _plain(text):
    """A page's text as the sentences are stored: links to their words, no emphasis or code
    marks, list markers and line breaks as single spaces."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("**", "").replace("`", "").replace("_", "")
    text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", " ", text, flags=re.M)
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.skipif(
    not MIRROR.exists(), reason="no checkout of modelcontextprotocol/modelcontextprotocol here"
)
def test_each_sentence_is_on_its_page():
    missing = []
    for name, rule in RULES.items():
        for revision, (page, sentence) in rule.where.items():
            if page == JSON_RPC:
                continue
            done = subprocess.run(
                ["git", "-C", str(MIRROR), "show", f"HEAD:{address(revision, page)}"],
                capture_output=True,
                text=True,
            )
            body, at = _plain(done.stdout), 0
            for part in sentence.split(" ... "):  # the parts of a list, in order
                at = body.find(_plain(part), at) if at >= 0 else -1
            if done.returncode or at < 0:
                missing.append((name, revision, page))
    assert missing == []
