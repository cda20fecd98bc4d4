"""Graduation's judge of one case (tests/exercises/test_each_case.py), in the process: a wrong answer is
the learner's failure in words (the call, what came back, what was expected); it is an error
of the course only when the course's own version fails the same case; a function the package
lacks, or that still raises the stub's NotImplementedError, is "not written yet"."""

import implementation
import pytest

import exercises.test_each_case as judge


@pytest.fixture
def theirs(monkeypatch):
    """Put a version of a function where graduation reads the package's."""

    def put(name, fn):
        monkeypatch.setattr(implementation.IMPLEMENTATION, name, fn, raising=False)
        monkeypatch.setitem(implementation.__dict__, name, fn)
        judge._STUBS.clear()
        judge._REPORTS.clear()

    yield put
    judge._STUBS.clear()
    judge._REPORTS.clear()


def _first_hidden(name):
    return next(place for case_name, place in judge.HIDDEN if case_name == name)


def test_a_wrong_answer_is_the_learner_s_failure_in_words(theirs):
    def read_sse(text):
        return []

    theirs("read_sse", read_sse)
    with pytest.raises(implementation.Unmet) as failed:
        judge.test_hidden_case("read_sse", _first_hidden("read_sse"))
    words = str(failed.value)
    assert "read_sse(" in words and "gave []" in words and "should be" in words


def test_a_case_the_course_fails_too_is_an_error_of_the_course(theirs, monkeypatch):
    def read_sse(text):
        return []

    theirs("read_sse", read_sse)
    monkeypatch.setattr(implementation, "_course_version", lambda name: read_sse)
    with pytest.raises(implementation.CourseFault):
        judge.test_hidden_case("read_sse", _first_hidden("read_sse"))


def test_a_table_case_the_course_fails_too_is_an_error_of_the_course(theirs, monkeypatch):
    from mcp_lesson.exercises.selfcheck import run_check

    def classify(msg):
        return ("request", None)

    theirs("classify", classify)
    rows = run_check(classify, "classify").rows
    place = next(place for name, place in judge.TABLE if name == "classify" and not rows[place].ok)
    with pytest.raises(implementation.Unmet) as failed:
        judge.test_table_case("classify", place)
    assert str(failed.value).startswith(
        "classify({"
    ) and "gave ('request', None); expected (" in str(failed.value)
    monkeypatch.setattr(implementation, "_course_version", lambda name: classify)
    with pytest.raises(implementation.CourseFault):
        judge.test_table_case("classify", place)


@pytest.mark.parametrize("stub", ["missing", "the stub", "the stub for some inputs"])
def test_the_stub_or_a_missing_function_is_not_written_yet(theirs, stub):
    if stub == "missing":
        fn = implementation._stand_in("audit", "is not in your package yet (lesson 10 builds it)")
    else:

        def fn(conversation):
            if stub == "the stub" or conversation:
                raise NotImplementedError()
            return []

    theirs("audit", fn)
    for test, cases in (
        (judge.test_table_case, judge.TABLE),
        (judge.test_hidden_case, judge.HIDDEN),
    ):
        for name, place in cases:
            if name == "audit":
                with pytest.raises(NotImplementedError):
                    test(name, place)


def test_each_case_of_a_stub_is_raised_with_its_own_frames_only(theirs):
    """The stub's error is found once and raised for every case: each raise starts a traceback of
    its own (one raised again keeps the frames of every earlier raise, and pytest reads them all
    for each report: a package of stubs took 12 s to graduate instead of 5)."""

    def audit(conversation):
        raise NotImplementedError()

    theirs("audit", audit)
    depths = []
    for name, place in judge.TABLE:
        if name == "audit" and len(depths) < 3:
            with pytest.raises(NotImplementedError) as raised:
                judge.test_table_case(name, place)
            depths.append(len(raised.traceback))
    assert len(depths) == 3 and depths[0] == depths[1] == depths[2], depths
