"""The quiz and the checker (mcp_lesson/widgets/quiz.py): the score, the order a seed
fixes, and a learner's function checked on a table, prints and errors kept out.
"""

from mcp_lesson import CASES
from mcp_lesson.widgets import Checker, Quiz, as_text


def test_quiz_right_and_wrong_answers_keep_score():
    quiz = Quiz(seed=3)
    assert quiz.score.value == "Score: 0/0"
    assert "Message 1 of" in as_text(quiz.question)
    case = quiz.current
    assert quiz.answer(case.kind) is True
    assert "Right: it is" in as_text(quiz.feedback)
    assert case.reason in as_text(quiz.feedback)
    assert quiz.score.value == "Score: 1/1"
    assert quiz.answer("something else") is False  # a second answer does not count
    assert quiz.score.value == "Score: 1/1"
    quiz.next()
    assert "Message 2 of" in as_text(quiz.question)
    assert quiz.feedback.value == ""
    wrong = next(kind for kind in ("request", "invalid") if kind != quiz.current.kind)
    assert quiz.answer(wrong) is False
    assert f"Not quite: you said {wrong}, but it is" in as_text(quiz.feedback)
    assert quiz.score.value == "Score: 1/2"


def test_quiz_reads_a_kind_whatever_its_case():
    quiz = Quiz(seed=3)
    kind = quiz.current.kind
    assert quiz.answer(f" {kind.capitalize()} ") is True
    assert "Right: it is" in as_text(quiz.feedback)
    assert quiz.score.value == "Score: 1/1"


def test_quiz_does_not_count_a_word_that_is_no_kind():
    quiz = Quiz(seed=3)
    assert quiz.answer("req") is False
    assert as_text(quiz.feedback).startswith(
        "'req' is not a kind, so it is not counted. Answer with one of request, "
        "notification, response, invalid"
    )
    assert quiz.score.value == "Score: 0/0" and not quiz.answered
    assert quiz.answer("<b>") is False and "<b>" not in quiz.feedback.value
    assert quiz.answer(quiz.current.kind) is True  # the question stayed open
    assert quiz.score.value == "Score: 1/1"


def test_quiz_seed_fixes_the_order_and_covers_the_table():
    names = []
    quiz = Quiz(seed=7)
    for _ in range(len(CASES)):
        names.append(quiz.current.name)
        quiz.next()
    assert sorted(names) == sorted(case.name for case in CASES)
    again = Quiz(seed=7)
    assert [again.current.name] == names[:1]
    assert quiz.current.name == names[0]  # after the last, it starts again


def test_quiz_buttons_answer(monkeypatch):
    quiz = Quiz(seed=1)
    kind = quiz.current.kind
    button = next(b for b in quiz.buttons if b.description == kind)
    button.click()
    assert quiz.score.value == "Score: 1/1"
    quiz.next_button.click()
    assert "Message 2 of" in as_text(quiz.question)


def test_quiz_shows_html_in_messages_as_text():
    html_case = next(case for case in CASES if "<img" in str(case.message))
    quiz = Quiz(cases=[html_case])
    assert "&lt;img" in quiz.question.value and "<img" not in quiz.question.value
    quiz.answer("request")
    assert "<img" not in quiz.feedback.value


def test_checker_shows_the_table():
    def classify(msg):
        if isinstance(msg, dict) and "method" in msg:
            return ("request", None)
        return ("invalid", -32600)

    checker = Checker(classify)
    assert checker.result.value == ""
    report = checker.run()
    assert checker.summary.value == report.summary()
    assert 0 < report.passed < report.total
    table = as_text(checker.result)
    first_row = table.splitlines()[1]
    assert first_row.startswith("FAIL | initialized notification")  # failures first
    assert table.count("\nFAIL | ") == report.total - report.passed
    assert table.count("\npass | ") == report.passed
    assert "<img" not in checker.result.value  # the HTML case's input, escaped
    assert "&lt;img" in checker.result.value


def test_checker_button_and_a_stub():
    def classify(msg):
        raise NotImplementedError()

    checker = Checker(classify)
    checker.button.click()
    assert "not implemented yet" in checker.summary.value
    assert "Write the body of classify" in as_text(checker.result)


def test_checker_keeps_prints_and_errors_out():
    def create_request(method, params=None, request_id=None):
        print("debugging...")
        raise ValueError("<b>oops</b>")

    checker = Checker(create_request)
    report = checker.run()
    assert report.target == "create_request" and report.passed == 0
    # "debugging...\n" is 13 characters, printed once per case
    assert f"printed {13 * report.total} characters while it ran" in as_text(checker.result)
    assert "<b>" not in checker.result.value


def test_checker_with_a_bad_target():
    checker = Checker(len, target="nothing")
    assert checker.run() is None
    assert "could not run" in checker.summary.value
