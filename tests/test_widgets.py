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
    HttpView,
    Quiz,
    RecordingView,
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
    for tool in (Classifier(), Quiz(seed=1), Checker(len), HttpView(), RecordingView()):
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

    parse = widgets.classifier.parse
    monkeypatch.setattr(widgets.classifier, "parse", counting_parse)
    monkeypatch.setattr(widgets._judging, "PAUSE", 0.05)
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
        await asyncio.sleep(widgets._judging.PAUSE * 4)
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
    http, recording = HttpView(), RecordingView()
    assert (http.headers_box.description, http.body_box.description) == ("Headers:", "Body:")
    assert (http.examples.description, http.revision.description) == ("Example:", "Revision:")
    assert (recording.text.description, recording.examples.description) == ("Recording:",
                                                                             "Example:")
    assert recording.upload.description == "Upload a recording"


def test_verdicts_are_announced_in_live_regions():
    classifier, quiz, checker = Classifier(), Quiz(seed=1), Checker(len)
    for part in (classifier.announcement, quiz.feedback, checker.summary):
        assert "mcp-live" in part._dom_classes
    assert as_text(classifier.announcement) == "Waiting for a message."
    classifier.value = REQUEST
    assert as_text(classifier.announcement) == "Verdict: request, no error code."
    classifier.value = IMG
    assert classifier.announcement.value == "Verdict: invalid, error code -32700 (Parse error)."
    http, recording = HttpView(), RecordingView()
    assert "mcp-live" in http.announcement._dom_classes
    assert "mcp-live" in recording.announcement._dom_classes
    assert (http.announcement.value, recording.announcement.value) == (
        "Waiting for a body.", "Waiting for a recording.")
    # Each tool carries the fixed script that turns mcp-live parts into live regions.
    for tool in (classifier, quiz, checker, http, recording):
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


# --- the HTTP view ------------------------------------------------------------------

from mcp_lesson.cases import HEADER_CHECKS  # noqa: E402
from mcp_lesson.widgets import (  # noqa: E402
    HEADER_LINES,
    HEADERS_LIMIT,
    SDK_BODY_LIMIT,
    read_headers,
)

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
GOOD_HEADERS = ("Accept: application/json, text/event-stream\nContent-Type: application/json\n"
                "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list")
LIST_BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                        "params": {"_meta": META}})


def test_http_view_headers_that_agree():
    view = HttpView(GOOD_HEADERS, LIST_BODY)
    assert (view.agree, view.answer, view.kind, view.code) == (True, None, "request", None)
    shown = as_text(view.result)
    assert shown.startswith("A strict 2026-07-28 server answers:\n\nHEADERS AGREE")
    assert "The body, under MCP 2026-07-28: REQUEST no error code" in shown
    assert view.request["headers"]["Mcp-Method"] == "tools/list"
    assert "Mcp-Method | tools/list | tools/list | the same" in shown
    assert "Content-Type" not in " ".join(view.notes) and "406" not in shown  # nothing more to say
    assert view.announcement.value == "Server: the headers agree with the body."


@pytest.mark.parametrize("case", HEADER_CHECKS, ids=lambda case: case.name)
def test_http_view_answers_every_header_check_as_lesson_09_does(case):
    view = HttpView()
    view.choose(case.name)
    if case.expected is None:
        assert view.answer is None and view.agree
    else:
        status, error = view.answer
        assert (status, error["id"], error["error"]["code"]) == (
            case.expected[0], case.expected[1]["id"], case.expected[1]["error"]["code"])
        assert f"{status} REFUSED" in as_text(view.result) and view.agree is False
        assert view.announcement.value.startswith(f"Server: refused with {status}, error code")
    assert view.notes == []  # the examples are well-formed header lines


def test_http_view_a_mismatch_shows_which_header_differs():
    view = HttpView(GOOD_HEADERS.replace("Mcp-Method: tools/list", "Mcp-Method: tools/call"),
                    LIST_BODY)
    assert view.answer[0] == 400 and view.answer[1]["error"]["code"] == -32020
    shown = as_text(view.result)
    assert "error code -32020 (Header mismatch)" in shown
    assert "Mcp-Method | tools/call | tools/list | differs" in shown


def test_http_view_examples_are_left_when_edited():
    view = HttpView()
    label = view.choose("no Mcp-Method")
    assert label.startswith("400 -32020") and view.examples.value >= 0
    view.headers_box.value = view.headers + "\nMcp-Method: tools/list"  # typed in the page
    assert view.examples.value == -1 and view.agree
    with pytest.raises(KeyError):
        view.choose("no such example")


def test_http_view_broken_json_gets_a_parse_error_not_a_traceback():
    view = HttpView(GOOD_HEADERS, '{"jsonrpc": "2.0", "id": 1, "meth')
    assert (view.kind, view.code) == ("invalid", -32700)
    assert view.answer == (400, {"jsonrpc": "2.0", "id": None,
                                 "error": {"code": -32700, "message": "Parse error"}})
    shown = as_text(view.result)
    assert "the server refuses it before it compares a header" in shown
    assert "Nothing: a client sends JSON, and this is not JSON." in shown
    assert "Traceback" not in shown and view.request is None


def test_http_view_an_invalid_body_is_refused_before_its_headers():
    view = HttpView(GOOD_HEADERS, '{"jsonrpc": "2.0", "id": true, "method": "tools/list"}')
    assert view.answer[0] == 400 and view.answer[1]["error"]["code"] == -32600
    assert view.agree is None
    assert ("http_request_for refuses it (a client sends valid messages only"
            in as_text(view.result))


def test_http_view_a_response_is_not_for_check_headers():
    body = '{"jsonrpc": "2.0", "id": 7, "result": {}}'
    view = HttpView(GOOD_HEADERS, body)
    assert (view.kind, view.answer, view.agree) == ("response", None, None)
    shown = as_text(view.result)
    assert "NOT JUDGED" in shown and "never POSTs" in shown
    assert "from 2026-07-28 on, a client never POSTs a response" in shown  # http_request_for
    assert view.announcement.value == "Server: check_headers does not judge this body."
    view.revision.value = "2025-11-25"  # then a client could POST its answer
    assert view.request["headers"]["MCP-Protocol-Version"] == "2025-11-25"


def test_http_view_the_revision_changes_what_the_client_sends():
    view = HttpView(GOOD_HEADERS, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    assert view.answer[1]["error"]["code"] == -32602  # no _meta: not a 2026-07-28 request
    assert "params._meta" in as_text(view.result)
    view.revision.value = "2025-11-25"
    assert set(view.request["headers"]) == {"Accept", "Content-Type", "MCP-Protocol-Version"}
    assert "What a client of MCP 2025-11-25 POSTs" in as_text(view.result)
    view.revision.value = "2025-03-26"
    assert "MCP-Protocol-Version" not in view.request["headers"]
    assert [label for label, _ in view.revision.options] == [
        "MCP 2025-03-26", "MCP 2025-06-18", "MCP 2025-11-25", "MCP 2026-07-28"]


def test_reading_header_lines_says_what_was_left_out_by_line():
    text = ("POST /mcp HTTP/1.1\n"
            "Mcp-Method tools/list\n"
            "Bad Name: x\n"
            ": no name\n"
            " folded: on\n"
            "X-Junk: a\x01b\n"
            "Mcp-Method: tools/call\r\n"
            "mcp-method:   tools/list  \n"
            "\n"
            "Mcp-Name: café ☕\n")
    headers, notes, repeated = read_headers(text)
    # A name given twice keeps its last value, spelt as it was written.
    assert headers == {"mcp-method": "tools/list", "Mcp-Name": "café ☕"}
    assert repeated == ["mcp-method"]
    said = "\n".join(notes)
    for words in ["Line 1 is a request line", "Line 2 has no colon", 'Line 3: "Bad Name" is not a',
                  "Line 4: \"\" is not a header name (the name before the colon is empty)",
                  "Line 5 starts with a space", "Line 6: the value of X-Junk holds control",
                  "Line 8: mcp-method is given again", "Line 10: the value of Mcp-Name holds "
                  "characters beyond Latin-1"]:
        assert words in said, words
    assert len(notes) == 8


def test_http_view_a_repeated_mcp_header_is_pointed_out():
    view = HttpView(GOOD_HEADERS + "\nMcp-Method: tools/list", LIST_BODY)
    assert view.agree  # check_headers reads one value...
    assert "refuses a request that repeats MCP-Protocol-Version, Mcp-Method or Mcp-Name: 400, " \
           "-32020" in as_text(view.result)  # ...the real server does not


def test_http_view_points_out_accept_and_content_type():
    view = HttpView("MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list\n"
                    "Accept: application/json\nContent-Type: text/plain", LIST_BODY)
    shown = as_text(view.result)
    assert "There is no Content-Type: application/json" in shown
    assert "answered an Accept of application/json alone with 406" in shown
    view.headers = GOOD_HEADERS.replace("application/json\n", "application/json; charset=utf-8\n")
    assert "Content-Type" not in " ".join(as_text(view.result).split("POSTs for this body")[0]
                                          .splitlines()[1:3])
    assert "There is no Content-Type" not in as_text(view.result)


@pytest.mark.parametrize("payload", HOSTILE)
def test_http_view_escapes_html_in_headers_and_body(payload):
    body = json.dumps({"jsonrpc": "2.0", "id": payload, "method": payload,
                       "params": {"name": payload}})
    headers = f"Mcp-Method: {payload}\nMcp-Name: {payload}\n{payload}\nX-{payload}: 1"
    view = HttpView(headers, body)
    markup = view.result.value
    assert tags(markup) <= ALLOWED_TAGS, tags(markup)
    assert "&lt;" in markup
    assert payload in as_text(view.result)
    view.set(headers=payload, body=payload)  # neither is anything: still text
    assert tags(view.result.value) <= ALLOWED_TAGS and view.code == -32700


def test_http_view_huge_headers_and_body_are_cut_with_a_note():
    view = HttpView("X-Long: " + "<b>" * HEADERS_LIMIT,
                    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": "x", "_meta": META,
                                           "arguments": {"blob": "<script>" * 1_300_000}}}))
    shown = as_text(view.result)
    assert f"only the first {HEADERS_LIMIT:,} are read" in shown
    assert f"a body over {SDK_BODY_LIMIT:,} bytes (4 MiB) with 413" in shown
    assert "Showing the first 4,000 characters" in shown
    assert len(view.result.value) < 30 * PREVIEW_LIMIT
    assert "<script" not in view.result.value and "&lt;b&gt;" in view.result.value
    view.headers = "A: b\n" * (HEADER_LINES + 50)
    assert f"only the first {HEADER_LINES} are read" in as_text(view.result)


@pytest.mark.parametrize("body, code", [
    ("NaN", -32700),
    ("\x00\x01\x02\ufffe junk", -32700),
    ("\ud800", -32700),
    ("[" * 100_000 + "]" * 100_000, -32700),
    (b"\xff\xfe{}", -32700),
    ('{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "ping"}', None),
])
def test_http_view_junk_never_breaks_it(body, code):
    view = HttpView("\x00\ud800junk: \x7f\nMcp-Method: \ud800", body)
    assert view.code == code
    assert "could not" not in as_text(view.result)
    sendable(view.result)
    sendable(view.headers_box)
    sendable(view.body_box)


def test_http_view_bytes_are_judged_as_they_came():
    view = HttpView(GOOD_HEADERS, b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert view.kind == "notification" and view.answer is None  # version header: enough
    assert "202 Accepted" in as_text(view.result)
    view.body = b'{"jsonrpc":"2.0","method":"\xff"}'
    assert view.code == -32700 and "\ufffd" in view.body


def test_http_view_a_text_set_from_code_is_judged_once():
    view = HttpView()
    judged = view.judged
    view.set(GOOD_HEADERS, LIST_BODY)
    assert view.judged == judged + 1


def test_http_view_a_long_paste_waits_for_the_typing_to_pause(parses):
    async def steps():
        view = HttpView(GOOD_HEADERS)
        judged = view.judged
        for end in range(3):
            view.body_box.value = LONG[:len(LONG) - 3 + end]
        assert view.judged == judged and parses == []
        assert "when the typing pauses" in as_text(view.result)
        view.body_box.value = LONG
        await settled(view, judged + 1)
        assert parses == [len(LONG)] and view.kind == "request"
        assert tags(view.result.value) <= ALLOWED_TAGS

    in_a_kernel_loop(steps)


# --- the recording view -----------------------------------------------------------------

from mcp_lesson import tap  # noqa: E402
from mcp_lesson.widgets import (  # noqa: E402
    DIAGRAM_ARROWS,
    RECORDING_LIMIT,
    RECORDING_LINES,
    TABLE_ROWS,
    mermaid_text,
    read_recording,
    sequence_diagram,
)


def entry_line(direction, message, t=0.0, **extra):
    text = message if isinstance(message, str) else json.dumps(message)
    kind, code = classify_json(text)
    return json.dumps({"t": t, "direction": direction, "kind": kind, "code": code, "text": text,
                       **extra})


def test_recording_view_finds_the_sloppy_server_s_faults():
    view = RecordingView()
    view.choose("the sloppy server")
    found = {problem["problem"] for problem in view.problems}
    assert {"pollution", "answer_to_notification", "invalid", "unanswered"} <= found
    # The same problems as the tap's own audit of the same lines.
    entries, _ = tap_read(view.value)
    assert [p["detail"] for p in view.problems] == [
        p["detail"] for p in tap.audit(entries, tap.agreed_revision(entries)[0])]
    shown = as_text(view.result)
    assert shown.startswith(f"{len(view.problems)} PROBLEMS 19 entries: 14 messages and 5 events")
    assert "line 9: the server wrote \"sloppy server 1.0 ready\" on stdout" in shown
    assert "9 | 0.063 | server → client | | invalid -32700 | sloppy server 1.0 ready" in shown
    assert view.announcement.value == f"Recording: 19 entries, {len(view.problems)} problems."
    assert view.diagram.startswith("sequenceDiagram\n    participant C as Client")
    drawn = decoded(view.diagram)
    assert "    S-xC: (9) not JSON: sloppy server 1.0 ready" in drawn
    assert "    S--xC: (13) invalid: result (id null)" in drawn
    assert "    C-)S: (3) notifications/initialized" in drawn
    assert "    C->>S: (6) tools/call echo (id 4)" in drawn


def decoded(diagram):
    """A diagram's text with Mermaid's entity codes (``#58;``) read back."""
    return re.sub(r"#(\d+);", lambda code: chr(int(code.group(1))), diagram)


def tap_read(text):
    """The tap's own reading of a recording (mcp_lesson.tap.read_recording reads files)."""
    entries = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            entries.append({**json.loads(line), "_line": number})
    return entries, []


def test_recording_view_a_clean_conversation_and_one_over_http():
    view = RecordingView()
    view.choose("a clean conversation")
    assert view.problems == [] and "NO PROBLEMS" in as_text(view.result)
    assert view.sessions[0][1] == "2025-11-25"
    view.choose("a 2026-07-28 conversation over HTTP")
    shown = as_text(view.result)
    assert view.problems == [] and view.sessions[0][1] == "2026-07-28"
    assert "| POST /mcp | request |" in shown and "| 200, SSE event | notification |" in shown
    drawn = decoded(view.diagram)
    assert "    S-->>C: (5) 400 error -32020 (id 2)" in drawn
    assert "    S-->>C: (7) 200, a stream begins" in drawn
    assert "    S-->>C: (11) 202, no body" in drawn


def test_recording_view_reports_each_malformed_line_by_number():
    text = "\n".join([
        entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        '{"t": 1, "direction": "to_server", "text": "cut',
        "",
        "[1, 2]",
        '{"hello": "world"}',
        '{"direction": "sideways", "text": "{}"}',
        "NaN",
        "[" * 100_000,
        entry_line("from_server", {"jsonrpc": "2.0", "id": 1, "result": {}}),
    ])
    view = RecordingView(text)
    assert [entry["_line"] for entry in view.entries] == [1, 9]
    said = " ".join(view.notes)
    assert said.startswith("6 lines left out: line 2 is not JSON (")
    for words in ["line 4 is a list, not an entry", "line 5 is an object with neither a direction "
                  "nor an event", "line 6: its direction 'sideways' is neither to_server nor "
                  "from_server", "line 7 is not JSON (", "line 8 is not JSON (the JSON is nested "
                  "too deeply"]:
        assert words in said, words
    assert view.problems == [] and "could not" not in as_text(view.result)


def test_recording_view_reads_a_file_that_is_not_utf8_line_by_line():
    data = (entry_line("to_server", {"jsonrpc": "2.0", "method": "notifications/initialized"})
            .encode() + b"\n\xff\xfe<script>\n\x00\x01\x02")
    view = RecordingView()
    view.load(data, name="<img src=x onerror=alert(1)>.jsonl")
    assert len(view.entries) == 1
    assert view.notes == ["2 lines left out: line 2 is not UTF-8 text; line 3 is not JSON (the "
                          "text is not valid JSON: Expecting value (line 1, column 1))."]
    markup = view.result.value
    assert tags(markup) <= ALLOWED_TAGS and "<img" not in markup and "<script" not in markup
    assert 'The file "<img src=x onerror=alert(1)>.jsonl", ' in as_text(view.result)


@pytest.mark.parametrize("payload", HOSTILE)
def test_recording_view_escapes_html_everywhere(payload):
    text = "\n".join([
        json.dumps({"t": 0, "event": "start", "command": [payload], "judge": payload}),
        entry_line("to_server", {"jsonrpc": "2.0", "id": payload, "method": payload},
                   http={"method": payload, "path": payload}),
        entry_line("from_server", payload, http={"status": payload}),
        json.dumps({"t": 1, "direction": "to_server", "kind": payload, "code": None,
                    "text": payload}),
        json.dumps({"t": 2, "event": "tap_error", "detail": payload}),
        json.dumps({"t": 3, "event": "server_exited", "status": payload}),
    ])
    view = RecordingView(text)
    markup = view.result.value
    assert tags(markup) <= ALLOWED_TAGS, tags(markup)
    assert payload in as_text(view.result)  # shown, as text
    for line in view.diagram.splitlines()[3:]:  # and no markup reaches Mermaid either
        assert "<" not in line and ">" not in line.split(": ", 1)[1], line


def test_mermaid_text_keeps_a_message_on_one_line_and_plain():
    """One escaping rule (mcp_lesson.recording): all but letters, digits, space and
    ``_./,()`` becomes an entity code, line ends and lone surrogates included."""
    assert mermaid_text("a;b#c<br>d%e\nf\r\x00g\u2028h") == (
        "a#59;b#35;c#60;br#62;d#37;e#10;f#13;#0;g#8232;h")
    assert mermaid_text("\ud800") == "#55296;"


def test_recording_view_guards_its_size():
    line = entry_line("to_server", {"jsonrpc": "2.0", "method": "x" * 500})
    big = "\n".join([line] * (RECORDING_LIMIT // len(line) + 100))
    view = RecordingView(big)
    kept = RECORDING_LIMIT // (len(line) + 1)
    assert len(view.entries) == kept
    assert view.notes == [f"The recording is {len(big):,} characters long; only the first "
                          f"{RECORDING_LIMIT:,} are read, up to line {kept:,} (the last whole "
                          "line); the rest is left out."]
    assert f"Showing the first {TABLE_ROWS:,} entries of {kept:,}." in as_text(view.result)
    assert f"{kept - DIAGRAM_ARROWS:,} more not drawn" in view.diagram
    assert len(view.diagram.splitlines()) == DIAGRAM_ARROWS + 4
    assert len(view.result.value) < 600_000
    short = "\n".join([json.dumps({"event": "x"})] * (RECORDING_LINES + 5))
    entries, notes = read_recording(short)
    assert len(entries) == RECORDING_LINES
    assert notes == [f"The recording has more than {RECORDING_LINES:,} lines; only the first "
                     f"{RECORDING_LINES:,} are read, the rest is left out."]
    assert read_recording(short.encode())[1] == notes


def test_recording_view_ten_megabytes_in_one_line():
    view = RecordingView(entry_line("to_server", "<b>" * 3_500_000))
    assert view.entries == []  # the line is cut, so it is not read at all
    assert "only the first 5,000,000 are read, up to line 0" in view.notes[0]
    assert "NOTHING READ" in as_text(view.result)
    assert view.announcement.value == "Recording: no entry could be read."


def test_recording_view_upload():
    view = RecordingView()
    data = view._examples[0][1].encode()
    # What the page sends when a file is picked (ipywidgets 8's FileUpload).
    view.upload.set_state({"value": [{"name": "talk.jsonl", "type": "", "size": len(data),
                                      "content": memoryview(data), "last_modified": 0}]})
    assert view.upload.value == ()  # the bytes are not kept in the widget
    assert len(view.entries) == 19 and view.value == ""
    assert as_text(view.result).startswith(f'The file "talk.jsonl", {len(data):,} bytes.')
    view.text.value = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert len(view.entries) == 1 and "The file" not in as_text(view.result)  # typed: the box
    assert [p["problem"] for p in view.problems] == ["unanswered"]


def test_recording_view_several_sessions_are_audited_apart():
    one = [json.dumps({"t": 0, "event": "start"}),
           entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.1),
           entry_line("from_server", {"jsonrpc": "2.0", "id": 1, "result": {}}, 0.2)]
    view = RecordingView("\n".join(one + one))  # the same id again, in a new session: fine
    assert [number for number, *_ in view.sessions] == [1, 2] and view.problems == []
    assert "Session 2: revision none" in as_text(view.result)
    assert "    Note over C,S: session 2 (4)" in view.diagram


def test_recording_view_fails_soft_without_the_audit(monkeypatch):
    text = RecordingView()._examples[0][1]
    monkeypatch.setattr(tap, "audit", lambda *args: 1 / 0)
    view = RecordingView(text)
    assert "the audit could not finish (ZeroDivisionError)" in as_text(view.result)
    assert view.diagram and len(view.entries) == 19
    monkeypatch.setitem(__import__("sys").modules, "mcp_lesson.tap", None)
    monkeypatch.delattr(__import__("mcp_lesson"), "tap")
    view = RecordingView(text)
    shown = as_text(view.result)
    assert "NO AUDIT" in shown and "cannot be loaded here (ModuleNotFoundError)" in shown
    assert view.announcement.value == "Recording: 19 entries; no audit here."
    assert "sequenceDiagram" in shown


@pytest.mark.parametrize("entry", [
    {"direction": "to_server", "truncated": True, "size": 99},
    {"direction": "to_server", "truncated": True, "size": "<big>"},
    {"direction": "from_server", "bytes": "!!!", "text": "x"},
    {"direction": "from_server", "bytes": 5},
    {"direction": "to_server", "text": 5, "kind": {"a": 1}, "code": True, "t": "soon"},
    {"direction": "from_server", "http": [1, 2], "text": "{}"},
    {"direction": "from_server", "http": {"status": {"x": 1}}, "sse": 3, "text": "{}"},
    {"event": {"a": 1}, "status": [1], "t": 1e308},
    {"event": "start", "command": "not a list"},
    {"event": "start", "command": [1, None, {"x": 2}]},
    {"direction": "to_server", "judge_error": "boom", "text": "x"},
    {"direction": "to_server", "text": '{"jsonrpc":"2.0","id":1,"method":"initialize",'
                                       '"params":{"protocolVersion":{"x":1}}}'},
])
def test_recording_view_takes_entries_of_odd_shapes(entry):
    view = RecordingView(json.dumps(entry))
    assert "could not show" not in as_text(view.result)
    assert len(view.entries) == 1
    sendable(view.result)


def test_recording_view_a_long_paste_waits_for_the_typing_to_pause():
    async def steps():
        view = RecordingView()
        line = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        text = "\n".join([line] * (INSTANT_LIMIT // len(line) + 10))
        judged = view.judged
        view.text.value = text[:-1]
        view.text.value = text
        assert view.judged == judged and "when the typing pauses" in as_text(view.result)
        await settled(view, judged + 1)
        assert view.judged == judged + 1 and len(view.entries) == text.count("\n") + 1

    widgets._judging.PAUSE, pause = 0.05, widgets._judging.PAUSE
    try:
        in_a_kernel_loop(steps)
    finally:
        widgets._judging.PAUSE = pause


def test_the_diagram_follows_the_times_not_the_file_order():
    request = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.5)
    answer = entry_line("from_server", {"jsonrpc": "2.0", "id": 1, "result": {}}, 0.7)
    entries, _ = read_recording(answer + "\n" + request)  # written out of order, as can happen
    assert sequence_diagram(entries).splitlines()[3:] == [
        "    C->>S: (2) ping (id 1)", "    S-->>C: (1) result (id 1)"]
    assert RecordingView(answer + "\n" + request).problems == []


def test_recording_view_shows_the_rest_when_one_entry_breaks_and_escapes_controls():
    """Issue 27: one bad entry (a t of 5,000 digits) does not blank the view; ESC, BEL and
    U+202E are shown as escapes; the diagram is drawn as a picture beside its text."""
    good = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.1)
    huge = ('{"t": ' + "9" * 5000 + ', "direction": "from_server", "kind": "response", '
            '"code": null, "text": "{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 1, \\"result\\": {}}"}')
    hostile = json.dumps({"t": 0.3, "direction": "to_server", "kind": "invalid", "code": -32700,
                          "text": "\x1b[2J\x07\u202eevil"})
    view = RecordingView("\n".join([good, huge, hostile]))
    shown = as_text(view.result)
    assert "could not show this" not in shown and len(view.entries) == 3
    assert "(a number too large to show)" in shown
    assert "\\x1b[2J\\x07\\u202eevil" in shown
    assert not any(char in view.result.value for char in "\x1b\x07\u202e")
    drawn = view.picture.outputs
    assert len(drawn) == 1 and drawn[0]["data"]["text/markdown"] == f"```mermaid\n{view.diagram}\n```"
