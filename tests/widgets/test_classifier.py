"""The classifier (mcp_lesson/widgets/classifier.py), driven headless: a pasted message's
kind, code, reason and reply; hostile and huge text; typing, judged at every keystroke or
once the typing pauses (_judging.py); and the revision it judges under.
"""

import asyncio
import json

import ipywidgets
import pytest
from processes import patience

from mcp_lesson import CASES, classify_json, explain_json, widgets
from mcp_lesson.exercises.cases import TEXT_CASES
from mcp_lesson.widgets import COLOURS, PREVIEW_LIMIT, Classifier, as_text, examples, preview

from .viewing import (
    ALLOWED_TAGS,
    HOSTILE,
    IMG,
    LONG,
    REQUEST,
    in_a_kernel_loop,
    sendable,
    settled,
    tags,
)


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
        (
            '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
            "notification",
            "NOTIFICATION",
        ),
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

    # Every case but those holding bytes that are not UTF-8 (invalid UTF-8, UTF-16): a text box
    # cannot hold them.
    def fits(text):
        try:
            return isinstance(text, str) or bool(text.decode("utf-8")) or True
        except UnicodeDecodeError:
            return False

    assert len(options) == len(CASES) + sum(fits(case.text) for case in TEXT_CASES)
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
    text = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "x", "arguments": {"blob": blob}},
        }
    )
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


def test_a_long_paste_is_parsed_once_when_the_typing_pauses(parses):
    async def steps():
        classifier = Classifier()
        judged = classifier.judged
        # Five keystrokes after a long paste: the browser sends the whole text each time.
        for end in range(5):
            classifier.text.value = LONG[: len(LONG) - 5 + end]
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
        await asyncio.sleep(
            patience(widgets._judging.PAUSE * 4)
        )  # time for a judge that should not come
        assert classifier.judged == judged and classifier.kind == "request"
        assert parses == [len(REQUEST)]

    in_a_kernel_loop(steps)


def test_text_set_from_code_is_judged_at_once(parses):
    async def steps():
        classifier = Classifier()
        classifier.value = LONG
        assert parses == [len(LONG)] and classifier.kind == "request"

    in_a_kernel_loop(steps)


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
