"""What every tool shares (mcp_lesson/widgets/_html.py): badges with their contrast,
a label on every control, verdicts announced in live regions, and short reprs.
"""

import ipywidgets
import pytest

from mcp_lesson.widgets import (
    COLOURS,
    LIVE_REGION_SCRIPT,
    Checker,
    Classifier,
    HttpView,
    Quiz,
    RecordingView,
    as_text,
    badge,
)

from .viewing import IMG, REQUEST


def test_reprs_are_short_and_fixed():
    for tool in (Classifier(), Quiz(seed=1), Checker(len), HttpView(), RecordingView()):
        assert "run the cell to start the tool" in repr(tool)


def contrast(colour, other):
    """WCAG 2 contrast ratio of two "#rrggbb" colours."""

    def luminance(hex_colour):
        channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
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
    assert (recording.text.description, recording.examples.description) == (
        "Recording:",
        "Example:",
    )
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
        "Waiting for a body.",
        "Waiting for a recording.",
    )
    # Each tool carries the fixed script that turns mcp-live parts into live regions.
    for tool in (classifier, quiz, checker, http, recording):
        scripts = [child for child in tool.children if isinstance(child, ipywidgets.Output)]
        assert [output["data"]["application/javascript"] for output in scripts[0].outputs] == [
            LIVE_REGION_SCRIPT
        ]
