"""The shared case table: big enough, labelled, and right about every verdict."""

import pytest
from implementation import (
    classify,
    classify_json,
    create_request,
    error_response,
)  # mcp_lesson's, or a graduating package's

from mcp_lesson import CASES
from mcp_lesson.exercises.cases import ERROR_BUILDS, NOT_TEXT_CASES, REQUEST_BUILDS, TEXT_CASES


def test_the_case_names_are_unique():
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)), "case names must be unique"


@pytest.mark.course_only
def test_every_rule_decides_at_least_one_case():
    """Each rule of the course's (a key of classification.RULES) decides a message of the
    case table, or of the revisions' cases under their revision; only "unreadable" is
    left, which no JSON value reaches (a hostile Python object, tested on its own)."""
    from mcp_lesson.exercises.cases import REVISION_CASES
    from mcp_lesson.rules.classification import RULES, rule_of

    decided = {rule_of(case.message) for case in CASES} | {
        rule_of(case.message, case.revision) for case in REVISION_CASES
    }
    assert set(RULES) - decided == {"unreadable"}


def test_every_kind_is_represented():
    kinds = {case.kind for case in CASES}
    assert kinds == {"request", "notification", "response", "invalid"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_verdict(case):
    assert case.reason and "\n" not in case.reason
    assert classify(case.message) == case.expected


@pytest.mark.parametrize(
    "case", TEXT_CASES + NOT_TEXT_CASES, ids=[c.name for c in TEXT_CASES + NOT_TEXT_CASES]
)
def test_text_case_verdict(case):
    assert classify_json(case.text) == case.expected


BUILDS = [(create_request, b) for b in REQUEST_BUILDS] + [(error_response, b) for b in ERROR_BUILDS]


@pytest.mark.parametrize(
    "builder, build", BUILDS, ids=[f"{f.__name__}: {b.name}" for f, b in BUILDS]
)
def test_builds(builder, build):
    if build.expected is TypeError:
        with pytest.raises(TypeError):
            builder(*build.args, **build.kwargs)
    else:
        got = builder(*build.args, **build.kwargs)
        assert got == build.expected and list(got) == list(build.expected)
