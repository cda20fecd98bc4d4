"""Fixtures of the widgets' tests: a classifier, and a count of the parses typing causes."""

import pytest

from mcp_lesson import widgets
from mcp_lesson.widgets import Classifier


@pytest.fixture()
def classifier():
    return Classifier()


@pytest.fixture()
def parses(monkeypatch):
    """Counts the widget's calls of parse; the pause is made short."""
    calls = []

    def counting_parse(text):
        calls.append(len(text))
        return parse(text)

    parse = widgets.classifier.parse
    monkeypatch.setattr(widgets.classifier, "parse", counting_parse)
    monkeypatch.setattr(widgets._judging, "PAUSE", 0.05)
    return calls
