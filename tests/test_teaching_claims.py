"""The teacher's guide's claims about a hostile student each name their test (docs/teaching.md,
"Against a hostile student"), and every test named there exists: the file, and a function of
that name in it, so a claim cannot outlive its test."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "teaching.md"
HEADING = "### Against a hostile student"
#: A test named in the guide: `tests/<path>.py::<function>`.
NAMED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def section():
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(HEADING)
    ends = [
        found.start()
        for found in re.finditer(r"^#{2,3} ", text[start + len(HEADING) :], re.MULTILINE)
    ]
    return text[start : start + len(HEADING) + ends[0]] if ends else text[start:]


def claims(part):
    """The claims (list items) of the section's ``part`` ("Protected" or "Not protected")."""
    text = section()
    start = text.index(f"**{part}**")
    rest = text[start:]
    following = rest.find("\n**", 2)
    block = rest if following < 0 else rest[:following]
    return [item for item in re.split(r"^- ", block, flags=re.MULTILINE)[1:]]


def functions(path):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def test_each_protection_claimed_names_its_test():
    protected = claims("Protected")
    assert len(protected) >= 12, "the guide holds a claim for each of the red team's twelve attacks"
    bare = [item.split("*")[1] for item in protected if not NAMED.search(item)]
    assert bare == [], f"claims with no test named: {bare}"
    assert claims("Not protected"), "the guide says what the class is not protected against"


@pytest.mark.parametrize(
    "path, name", sorted(set(NAMED.findall(GUIDE.read_text(encoding="utf-8"))))
)
def test_every_test_the_guide_names_exists(path, name):
    assert (ROOT / path).is_file(), f"docs/teaching.md names {path}, which is not there"
    assert name in functions(path), (
        f"docs/teaching.md names {path}::{name}, which {path} does not define"
    )


def test_a_test_that_is_gone_is_caught(tmp_path):
    """The check above would fail on a renamed test (it reads the file, not a list)."""
    assert "test_a_folder_1500_deep_costs_nothing" in functions(
        "tests/classroom/test_grading_hostile.py"
    )
    assert "test_no_such_test" not in functions("tests/classroom/test_grading_hostile.py")
