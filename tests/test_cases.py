"""The shared case table: big enough, labelled, and right about every verdict."""

import pytest

from mcp_lesson import CASES
from mcp_lesson.cases import NOT_TEXT_CASES, TEXT_CASES
from mcp_lesson.cases import ERROR_BUILDS, REQUEST_BUILDS
from implementation import classify, classify_json, create_request, error_response  # mcp_lesson's, or a graduating package's


def test_the_table_has_at_least_40_labelled_messages():
    assert len(CASES) >= 40
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)), "case names must be unique"


def test_every_kind_is_represented():
    kinds = {case.kind for case in CASES}
    assert kinds == {"request", "notification", "response", "invalid"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_verdict(case):
    assert case.reason and "\n" not in case.reason
    assert classify(case.message) == case.expected


@pytest.mark.parametrize("case", TEXT_CASES + NOT_TEXT_CASES,
                         ids=[c.name for c in TEXT_CASES + NOT_TEXT_CASES])
def test_text_case_verdict(case):
    assert classify_json(case.text) == case.expected


BUILDS = [(create_request, b) for b in REQUEST_BUILDS] + [(error_response, b) for b in ERROR_BUILDS]


@pytest.mark.parametrize("builder, build", BUILDS, ids=[f"{f.__name__}: {b.name}" for f, b in BUILDS])
def test_builds(builder, build):
    if build.expected is TypeError:
        with pytest.raises(TypeError):
            builder(*build.args, **build.kwargs)
    else:
        got = builder(*build.args, **build.kwargs)
        assert got == build.expected and list(got) == list(build.expected)
