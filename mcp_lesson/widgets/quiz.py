"""The quiz (label messages of the case table, told why) and the checker (the
self-check of your own function, as a table).
"""

import random

import ipywidgets as widgets

from mcp_lesson.exercises.calling import python_text
from mcp_lesson.exercises.cases import CASES
from mcp_lesson.exercises.selfcheck import run_check
from mcp_lesson.rules.explanation import explain
from mcp_lesson.widgets._html import (
    _MONO,
    _NOTE,
    COLOURS,
    KINDS,
    _live,
    _pre,
    _styles,
    badge,
    clean,
    escape,
)


class Quiz(widgets.VBox):
    """Shows a message from the case table; you name its kind.

    ``seed`` fixes the order (``Quiz(seed=1)`` asks the same questions every
    time); without it the order is random. Drive it from code with
    :meth:`answer` and :meth:`next`; read ``.question``, ``.feedback`` and
    ``.score``.
    """

    def __init__(self, seed=None, cases=None, **kwargs):
        self.cases = list(CASES if cases is None else cases)
        if not self.cases or not all(hasattr(case, "message") for case in self.cases):
            raise ValueError("a Quiz needs at least one case with a message (see mcp_lesson.CASES)")
        self.order = list(range(len(self.cases)))
        random.Random(seed).shuffle(self.order)
        self.position = 0
        self.right = 0
        self.asked = 0
        self.answered = False
        self.question = widgets.HTML()
        self.question.add_class("mcp-quiz-question")
        self.buttons = []
        for kind in KINDS:
            button = widgets.Button(description=kind, tooltip=f"It is a {kind}")
            button.add_class(f"mcp-quiz-{kind}")
            button.style.button_color = COLOURS[kind]
            button.style.text_color = "white"
            button.on_click(lambda _button, kind=kind: self.answer(kind))
            self.buttons.append(button)
        self.feedback = _live(widgets.HTML())
        self.feedback.add_class("mcp-quiz-feedback")
        self.score = widgets.Label()
        self.score.add_class("mcp-quiz-score")
        self.next_button = widgets.Button(description="Next message")
        self.next_button.on_click(lambda _button: self.next())
        super().__init__(
            [
                *_styles(),
                self.question,
                widgets.HBox(self.buttons),
                self.feedback,
                widgets.HBox([self.next_button, self.score]),
            ],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-quiz")
        self._ask()

    def __repr__(self):
        return "Quiz: the message-kind quiz (run the cell to start the tool)"

    @property
    def current(self):
        """The case being asked about."""
        return self.cases[self.order[self.position % len(self.order)]]

    def _ask(self):
        self.answered = False
        number = self.position % len(self.order) + 1
        self.question.value = (
            f'<div style="line-height: 1.45"><p><b>Message {number} of {len(self.order)}.</b>'
            " What kind is it?</p>" + _pre(self.current.message) + "</div>"
        )
        self.feedback.value = ""
        self._score()

    def _score(self):
        self.score.value = f"Score: {self.right}/{self.asked}"

    def answer(self, kind):
        """Answer the current question; returns True when ``kind`` is right.

        A kind is read whatever its case and the spaces around it (``"Request"``
        is ``"request"``). Anything that is not one of :data:`KINDS` is not
        counted: the feedback names the four kinds, and the question stays open.
        """
        case = self.current
        said = str.lower(str.strip(kind)) if isinstance(kind, str) else None
        correct = said == case.kind
        if self.answered:
            self.feedback.value += (
                f'<p style="{_NOTE}">You have answered this one; press "Next message".</p>'
            )
            return correct
        if said not in KINDS:  # None for anything that is not text
            self.feedback.value = (
                f'<p class="mcp-quiz-verdict">{escape(python_text(kind, 60))} is not a kind, '
                "so it is not counted. Answer with one of "
                f"{', '.join(KINDS)} (or press its button).</p>"
            )
            return False
        kind = said
        self.answered = True
        self.asked += 1
        self.right += correct
        if correct:
            head = f"{badge(case.kind)} Right: it is {_phrase(case.kind)}."
        else:
            head = (
                f"{badge(case.kind)} Not quite: you said {escape(kind)}, but it is "
                f"{_phrase(case.kind)}."
            )
        self.feedback.value = (
            f'<div style="line-height: 1.45"><p class="mcp-quiz-verdict">{head}</p>'
            f"<p>Why: {escape(case.reason)}.</p>"
            f'<p style="{_NOTE}">{escape(explain(case.message))}</p></div>'
        )
        self._score()
        return correct

    def next(self):
        """Move on to the next message (after the last, start again)."""
        self.position += 1
        self._ask()


def _phrase(kind):
    return "invalid" if kind == "invalid" else f"a {kind}"


class Checker(widgets.VBox):
    """Runs the self-check on your function and shows the pass/fail table.

    ``Checker(classify)`` checks a function named like one of the course's
    targets; pass ``target=`` for any other name. Press the button (or call
    :meth:`run`) after changing the function. ``.summary`` is a ``Label``
    with the score, ``.result`` the ``HTML`` table, failures first.
    """

    def __init__(self, fn, target=None, **kwargs):
        self.fn = fn
        self.target = target
        self.report = None
        name = getattr(fn, "__name__", "your function")
        self.button = widgets.Button(description=f"Check {name}", button_style="primary")
        self.button.on_click(lambda _button: self.run())
        self.summary = _live(widgets.Label("Press the button to run the self-check."))
        self.summary.add_class("mcp-checker-summary")
        self.result = widgets.HTML()
        self.result.add_class("mcp-checker-result")
        super().__init__(
            [*_styles(), widgets.HBox([self.button, self.summary]), self.result],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-checker")

    def __repr__(self):
        return "Checker: the self-check table (run the cell to start the tool)"

    def run(self):
        """Run the check now; returns the :class:`CheckReport`."""
        try:
            report = run_check(self.fn, self.target)
        except Exception as exc:  # e.g. an unknown target name
            self.summary.value = f"The check could not run: {clean(exc)}"
            self.result.value = ""
            return None
        self.report = report
        self.summary.value = clean(report.summary())
        colour = COLOURS["response"] if report.all_pass else COLOURS["invalid"]
        self.summary.style.text_color = colour
        rows = sorted(report.rows, key=lambda row: row.ok)  # failures first, stable
        td = 'style="padding: 3px 8px; vertical-align: top; border-bottom: 1px solid #eaeef2'
        cells = "".join(
            f'<tr class="{"mcp-pass" if row.ok else "mcp-fail"}">'
            f"<td {td}; color:{COLOURS['response'] if row.ok else COLOURS['invalid']};"
            f' font-weight:600">{"pass" if row.ok else "FAIL"}</td>'
            f'<td {td}">{escape(row.name)}</td>'
            f'<td {td}; {_MONO}">{escape(row.shown_input)}</td>'
            f'<td {td}; {_MONO}; white-space: nowrap">{escape(row.expected)}</td>'
            f'<td {td}; {_MONO}; white-space: nowrap">{escape(row.got)}</td>'
            f'<td {td}">{escape(row.reason)}</td></tr>'
            for row in rows
        )
        notes = []
        if report.not_implemented:
            notes.append(f"Write the body of {report.target}, then press the button again.")
        if report.printed:
            notes.append(
                f"Your function printed {report.printed:,} characters while it ran; "
                "they are not shown here."
            )
        head = "".join(
            f'<th style="text-align: left; padding: 3px 8px">{name}</th>'
            for name in ("result", "case", "input", "expected", "got", "why")
        )
        self.result.value = (
            "".join(f'<p style="{_NOTE}">{escape(note)}</p>' for note in notes)
            + f'<div tabindex="0" style="max-height: 26em; overflow: auto;'
            f' border-left: 3px solid {colour}; line-height: 1.35">'
            '<table class="mcp-checker-table" style="border-collapse: collapse; font-size: 12px">'
            f"<thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table></div>"
        )
        return report
