"""The loop of every lesson's hidden tests (mcp_lesson/exercises/hidden_tests.py): what a
student reads on the feedback page when a case fails."""

import pytest

from mcp_lesson.exercises.hidden_tests import hidden_tests


def stub(msg):
    raise NotImplementedError()


def test_a_function_not_written_yet_is_said_so():
    with pytest.raises(AssertionError) as failed:
        hidden_tests(stub, [({"id": 1}, ("request", None), "an id of 1")])
    assert str(failed.value) == (
        "an id of 1:\n  stub({'id': 1})\n"
        "  raised NotImplementedError (not written yet),\n"
        "  but it should be ('request', None)"
    )


def test_a_wrong_answer_and_an_exception_are_said_in_words():
    with pytest.raises(AssertionError, match=r"  gave 1,\n  but it should be True$"):
        hidden_tests(lambda value: 1, [(7, True, "seven")])  # 1 is not True
    with pytest.raises(AssertionError, match=r"raised KeyError: 'id'"):
        hidden_tests(lambda msg: msg["id"], [({}, 1, "no id")])


def test_values_that_cannot_be_written_are_described():
    deep = []
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(AssertionError) as failed:
        hidden_tests(lambda *args: 10**5000, [((10**5000, deep), None, "huge")], spread=True)
    assert "<a 5,001-digit integer>" in str(failed.value) and "a list of 1 item" in str(
        failed.value
    )


def test_a_function_that_changes_its_argument_fails_when_asked():
    def marks(msg):
        msg["seen"] = True
        return msg.get("id")

    hidden_tests(marks, [({"id": 3}, 3, "kept")])  # not asked: the answer alone counts
    with pytest.raises(AssertionError, match="changed what it was given into"):
        hidden_tests(marks, [({"id": 3}, 3, "kept")], unchanged=True)


def test_every_case_passing_says_nothing():
    assert hidden_tests(len, [([1, 2], 2, "two"), ("", 0, "none")]) is None
