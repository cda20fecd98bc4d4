"""The playground widgets, driven headless: set values, read the result widgets back.

No browser and no kernel: ipywidgets objects work as plain Python objects, and
what the page would show is in their ``.value``. The tests of typing run the
widget inside an asyncio event loop, as a kernel does.
"""

import asyncio
import json
import re
import time

import ipywidgets
import pytest

from mcp_lesson import CASES, classify_json, explain_json
from mcp_lesson.cases import TEXT_CASES
from mcp_lesson import widgets
from mcp_lesson.widgets import (
    COLOURS,
    INSTANT_LIMIT,
    LIVE_REGION_SCRIPT,
    PREVIEW_LIMIT,
    Checker,
    Classifier,
    Quiz,
    as_text,
    badge,
    examples,
    preview,
)

REQUEST = '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
IMG = "<img src=x onerror=alert(1)>"
HOSTILE = [
    IMG,
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "<iframe src=javascript:alert(1)>",
    "</pre><b>bold</b>",
]


@pytest.fixture()
def classifier():
    return Classifier()


def sendable(widget):
    """The kernel sends widget values as UTF-8 JSON; that must always work."""
    json.dumps(widget.value, ensure_ascii=False).encode("utf-8")


def tags(markup):
    """The names of all tags in some markup (what the browser would build)."""
    return set(re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", markup))


ALLOWED_TAGS = {"div", "p", "span", "pre", "b", "table", "thead", "tbody", "tr", "th", "td"}


# --- the classifier -------------------------------------------------------------


def test_classifier_shows_kind_code_reason_and_reply(classifier):
    assert isinstance(classifier.result, ipywidgets.HTML)
    classifier.value = REQUEST
    assert classifier.value == REQUEST
    assert (classifier.kind, classifier.code) == ("request", None)
    shown = as_text(classifier.result)
    assert shown.startswith("REQUEST no error code")
    assert "the receiver owes it exactly one response" in shown
    assert "nothing (the application answers it" in shown
    assert '"method": "tools/list"' in shown  # pretty-printed message
    assert COLOURS["request"] in classifier.result.value


@pytest.mark.parametrize(
    "text, kind, badge",
    [
        ('{"jsonrpc": "2.0", "method": "notifications/initialized"}', "notification",
         "NOTIFICATION"),
        ('{"jsonrpc": "2.0", "id": 1, "result": {}}', "response", "RESPONSE"),
        ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', "invalid", "INVALID"),
    ],
)
def test_each_kind_gets_its_own_badge(classifier, text, kind, badge):
    classifier.value = text
    assert classifier.kind == kind
    assert f"mcp-badge-{kind}" in classifier.result.value
    assert COLOURS[kind] in classifier.result.value
    assert as_text(classifier.badge) == badge


def test_invalid_message_shows_the_error_reply(classifier):
    classifier.value = '{"jsonrpc": "2.0", "id": 5, "method": 42}'
    assert (classifier.kind, classifier.code) == ("invalid", -32600)
    shown = as_text(classifier.result)
    assert "error code -32600 (Invalid Request)" in shown
    assert "a method name must be a string" in shown
    reply = shown.split("A strict server replies:")[1]
    assert '"id": 5' in reply and '"code": -32600' in reply


def test_broken_json_is_a_parse_error_with_a_reason(classifier):
    text = '{"jsonrpc": "2.0", "id": 1, "meth'
    classifier.value = text
    assert (classifier.kind, classifier.code) == ("invalid", -32700)
    shown = as_text(classifier.result)
    assert "error code -32700 (Parse error)" in shown
    assert explain_json(text) in shown
    assert "Traceback" not in shown and "pretty-printed" not in shown
    assert '"code": -32700' in shown


def test_empty_text_shows_a_hint_not_an_error(classifier):
    assert classifier.kind is None
    assert "Paste a JSON-RPC message" in as_text(classifier.result)
    classifier.value = REQUEST
    classifier.value = ""
    assert classifier.kind is None and "WAITING" in as_text(classifier.result)


def test_every_example_fills_the_box_and_agrees_with_the_package(classifier):
    options = examples()
    # Every case but the one holding invalid UTF-8 (a text box cannot hold it).
    assert len(options) == len(CASES) + len(TEXT_CASES) - 1
    assert len(classifier.examples.options) == len(options) + 1
    for index, (label, text) in enumerate(options):
        classifier.examples.value = index
        assert classifier.value == text
        if text == "":  # the empty-text case: the hint says what a server would do
            assert "-32700" in as_text(classifier.result)
            continue
        kind, code = classify_json(text)
        assert (classifier.kind, classifier.code) == (kind, code), label
        assert label.startswith(kind)


def test_choose_by_name(classifier):
    assert classifier.choose("request with id 1.0").startswith("invalid -32600")
    assert '"id": 1.0' in as_text(classifier.result)
    assert "a float is not an integer" in as_text(classifier.result)
    with pytest.raises(KeyError):
        classifier.choose("no such example")
    classifier.value = classifier.value.replace("1.0", "1")  # edited by hand
    assert classifier.examples.value == -1 and classifier.kind == "request"


@pytest.mark.parametrize("payload", HOSTILE)
@pytest.mark.parametrize("where", ["method", "id", "raw"])
def test_html_is_always_escaped(classifier, payload, where):
    if where == "method":
        text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": payload})
    elif where == "id":  # an invalid id that the reason quotes and the reply may echo
        text = json.dumps({"jsonrpc": "2.0", "id": payload, "result": 5})
    else:  # not JSON at all
        text = payload
    classifier.value = text
    markup = classifier.result.value
    assert tags(markup) <= ALLOWED_TAGS, tags(markup)
    if where == "raw":  # not JSON: the verdict, and nothing of the text as markup
        assert classifier.code == -32700
    else:
        assert "&lt;" in markup
        assert payload in as_text(classifier.result)  # shown, as text


def test_the_html_example_case_is_escaped(classifier):
    classifier.choose("HTML in a method name")
    assert "&lt;img" in classifier.result.value
    assert "<img" not in classifier.result.value
    assert classifier.kind == "request"


def test_ten_megabytes_get_a_short_preview_with_a_note(classifier):
    blob = "<script>" * 1_300_000
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "x", "arguments": {"blob": blob}}})
    assert len(text) > 10_000_000
    classifier.value = text
    assert classifier.kind == "request"
    assert len(classifier.result.value) < 20 * PREVIEW_LIMIT
    assert f"Showing the first {PREVIEW_LIMIT:,} characters" in as_text(classifier.result)
    assert f"{len(text):,} characters long" in as_text(classifier.result)
    assert "<script" not in classifier.result.value


def test_a_huge_id_is_cut_in_the_reply_too(classifier):
    classifier.value = json.dumps({"jsonrpc": "2.0", "id": "x" * 1_000_000, "result": 1})
    assert classifier.code == -32600
    assert len(classifier.result.value) < 20 * PREVIEW_LIMIT
    assert as_text(classifier.result).count("Showing the first") == 2


def test_deep_nesting_gets_a_clear_verdict(classifier):
    classifier.value = "[" * 100_000 + "]" * 100_000
    assert (classifier.kind, classifier.code) == ("invalid", -32700)
    assert "nested too deeply" in as_text(classifier.result)


def test_nesting_that_parses_but_cannot_be_pretty_printed():
    deep = []
    for _ in range(5000):
        deep = [deep]
    text, note = preview(deep, limit=10**9)
    assert text == ""
    assert note == "It is nested too deeply to pretty-print."


@pytest.mark.parametrize(
    "text, code",
    [
        ("NaN", -32700),
        ('{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700),
        ("\x00\x01\x02\ufffe junk", -32700),
        ("\ud800", -32700),  # half a surrogate pair: not even encodable
        ('"\\ud800"', -32600),  # the same, escaped: valid JSON, not an object
        ('{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "ping"}', None),
    ],
)
def test_junk_never_breaks_the_widget(classifier, text, code):
    classifier.value = text
    assert classifier.code == code
    assert "could not show" not in as_text(classifier.result)
    sendable(classifier.result)
    sendable(classifier.text)


def test_bytes_are_read_as_utf8(classifier):
    classifier.value = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'
    assert classifier.kind == "notification"
    classifier.value = b"\xff\xfe"
    assert classifier.code == -32700
    sendable(classifier.text)


def test_pasted_text_is_never_evaluated(classifier, tmp_path):
    marker = tmp_path / "evaluated"
    classifier.value = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    assert classifier.code == -32700
    assert not marker.exists()


# --- the quiz -------------------------------------------------------------------


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
        "notification, response, invalid")
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


# --- the checker ----------------------------------------------------------------


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


def test_reprs_are_short_and_fixed():
    for tool in (Classifier(), Quiz(seed=1), Checker(len)):
        assert "run the cell to start the tool" in repr(tool)


def test_bytes_that_are_not_utf8_give_a_parse_error_in_the_widget():
    classifier = Classifier()
    classifier.value = b'{"jsonrpc":"2.0","method":"\xff<script>"}'
    assert (classifier.kind, classifier.code) == ("invalid", -32700)
    assert "<script>" not in classifier.result.value
    classifier.value = b'{"jsonrpc":"2.0","method":"ok"}'
    assert classifier.kind == "notification"


def test_ten_megabytes_of_digits_get_a_verdict_at_once():
    classifier = Classifier()
    classifier.value = "9" * 10_000_000
    assert (classifier.kind, classifier.code) == ("invalid", -32700)


# --- typing: a long paste is parsed once per pause -----------------------------------

LONG = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": IMG * (INSTANT_LIMIT // 20)}}})


@pytest.fixture()
def parses(monkeypatch):
    """Counts the widget's calls of parse; the pause is made short."""
    calls = []

    def counting_parse(text):
        calls.append(len(text))
        return parse(text)

    parse = widgets.parse
    monkeypatch.setattr(widgets, "parse", counting_parse)
    monkeypatch.setattr(widgets, "PAUSE", 0.05)
    return calls


def in_a_kernel_loop(steps):
    """Run ``steps`` (a coroutine function) in an event loop, as ipykernel does."""
    asyncio.run(steps())


async def settled(classifier, judged, within=30):
    """Wait (at most ``within`` s, to never hang) until the classifier has judged ``judged`` texts."""
    deadline = time.monotonic() + within
    while classifier.judged < judged and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


def test_a_long_paste_is_parsed_once_when_the_typing_pauses(parses):
    async def steps():
        classifier = Classifier()
        judged = classifier.judged
        # Five keystrokes after a long paste: the browser sends the whole text each time.
        for end in range(5):
            classifier.text.value = LONG[:len(LONG) - 5 + end]
        assert parses == [] and classifier.judged == judged
        assert classifier.kind is None
        assert "when the typing pauses" in as_text(classifier.result)
        classifier.text.value = LONG
        await settled(classifier, judged + 1)
        assert parses == [len(LONG)]  # once, the final text
        assert (classifier.kind, classifier.code) == ("request", None)
        assert tags(classifier.result.value) <= ALLOWED_TAGS  # the pasted <img> stays text
        assert IMG in as_text(classifier.result)

    in_a_kernel_loop(steps)


def test_short_texts_are_judged_at_every_keystroke(parses):
    async def steps():
        classifier = Classifier()
        for end in range(1, len(REQUEST) + 1):
            classifier.text.value = REQUEST[:end]
        assert len(parses) == len(REQUEST)
        assert classifier.kind == "request"

    in_a_kernel_loop(steps)


def test_a_short_text_cancels_a_pending_long_one(parses):
    async def steps():
        classifier = Classifier()
        classifier.text.value = LONG
        classifier.text.value = REQUEST  # the long text deleted before the pause
        assert classifier.kind == "request"
        judged = classifier.judged
        await asyncio.sleep(widgets.PAUSE * 4)
        assert classifier.judged == judged and classifier.kind == "request"
        assert parses == [len(REQUEST)]

    in_a_kernel_loop(steps)


def test_text_set_from_code_is_judged_at_once(parses):
    async def steps():
        classifier = Classifier()
        classifier.value = LONG
        assert parses == [len(LONG)] and classifier.kind == "request"

    in_a_kernel_loop(steps)


# --- accessibility ---------------------------------------------------------------


def contrast(colour, other):
    """WCAG 2 contrast ratio of two "#rrggbb" colours."""
    def luminance(hex_colour):
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted([luminance(colour), luminance(other)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("kind", COLOURS)
def test_badges_keep_their_contrast(kind):
    # Small bold text on the badge colour: WCAG AA asks for 4.5:1.
    assert contrast(COLOURS[kind], "#ffffff") >= 4.5
    assert f"background:{COLOURS[kind]}; color:#fff;" in badge(kind)


def test_quiz_buttons_keep_their_contrast():
    for button in Quiz(seed=1).buttons:
        assert button.style.text_color == "white"
        assert contrast(button.style.button_color, "#ffffff") >= 4.5


def test_every_control_has_a_label():
    classifier, quiz, checker = Classifier(), Quiz(seed=1), Checker(len)
    assert classifier.text.description == "Message:"
    assert classifier.examples.description == "Example:"
    for button in [*quiz.buttons, quiz.next_button, checker.button]:
        assert button.description.strip()


def test_verdicts_are_announced_in_live_regions():
    classifier, quiz, checker = Classifier(), Quiz(seed=1), Checker(len)
    for part in (classifier.announcement, quiz.feedback, checker.summary):
        assert "mcp-live" in part._dom_classes
    assert as_text(classifier.announcement) == "Waiting for a message."
    classifier.value = REQUEST
    assert as_text(classifier.announcement) == "Verdict: request, no error code."
    classifier.value = IMG
    assert classifier.announcement.value == "Verdict: invalid, error code -32700 (Parse error)."
    # Each tool carries the fixed script that turns mcp-live parts into live regions.
    for tool in (classifier, quiz, checker):
        scripts = [child for child in tool.children if isinstance(child, ipywidgets.Output)]
        assert [output["data"]["application/javascript"] for output in scripts[0].outputs] == [
            LIVE_REGION_SCRIPT]


def test_the_classifier_judges_under_the_chosen_revision():
    no_id = '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}'
    tool = Classifier(no_id)
    assert tool.revision.value is None and (tool.kind, tool.code) == ("invalid", -32600)
    assert "valid since 2025-11-25" in as_text(tool.result)
    tool.revision.value = "2026-07-28"
    assert (tool.kind, tool.code) == ("response", None)
    tool.value = '[{"jsonrpc":"2.0","method":"notifications/initialized"}]'
    assert tool.kind == "invalid"
    tool.revision.value = "2025-03-26"
    assert tool.kind == "batch" and "valid only under 2025-03-26" in as_text(tool.result)
    assert [label for label, _ in tool.revision.options][0] == "the course's rules"


def test_the_revision_drop_down_shows_the_course_s_rules():
    """ipywidgets takes the value None for "nothing selected": the drop-down must
    still select (and the page show) the option of revision None, also after a
    learner picks another revision and comes back, or code sets None again."""
    revision = Classifier().revision
    course_rules = "the course's rules"
    assert revision.options[0] == (course_rules, None)

    def shows_the_course_s_rules():
        # What the page gets is the index (-1 in the page when it is None).
        assert revision.get_state()["index"] == 0
        assert (revision.index, revision.label, revision.value) == (0, course_rules, None)

    shows_the_course_s_rules()
    revision.set_state({"index": 1})  # as a pick in the page arrives: by index
    assert revision.value == "2024-11-05"
    revision.set_state({"index": 0})
    shows_the_course_s_rules()
    revision.value = "2025-03-26"
    revision.value = None
    shows_the_course_s_rules()
    tool = Classifier("[]")  # classified under the course's rules: a list is invalid
    assert (tool.revision.index, tool.kind, tool.code) == (0, "invalid", -32600)


def test_the_same_verdict_under_every_revision_says_nothing_about_revisions():
    tool = Classifier('{"jsonrpc":"2.0","id":1,"method":"ping"}')
    assert "Across MCP revisions" not in as_text(tool.result)
