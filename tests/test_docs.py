"""The examples in the README and in the docstrings are run, so they stay true."""

import doctest
import pathlib

import pytest

import mcp_lesson
from mcp_lesson import classification, messages

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 4 and result.failed == 0


@pytest.mark.parametrize("module", [mcp_lesson, messages, classification])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0
