"""Judging a text as it is typed: at once up to :data:`INSTANT_LIMIT` characters,
once the typing pauses for :data:`PAUSE` seconds beyond; the base of the tools that
judge a pasted text (the classifier, the HTTP view, the recording view).
"""

import asyncio

from mcp_lesson.widgets._html import badge, escape

#: Texts up to this many characters are judged at every keystroke; longer ones
#: once typing pauses for :data:`PAUSE` seconds.
INSTANT_LIMIT = 50_000
PAUSE = 0.5


class _Judging:
    """How a tool judges its text: a short text is judged at once, a long one when
    the typing pauses; a text set from code at once.

    A subclass has ``.result`` and ``.announcement`` widgets, and defines
    ``_render()`` (the result's markup) and ``_spoken()`` (the live region's line);
    ``_waiting()`` forgets the last verdict and ``_failed(exc)`` says that the text
    could not be shown.
    """

    def _start_judging(self):
        self.judged = 0
        self._pending = None  # the timer of a text waiting for a pause in typing
        self._from_code = False  # True while texts are being set from code

    def _changed(self, size):
        self._cancel_pending()
        if self._from_code or size <= INSTANT_LIMIT or not self._wait_for_pause(size):
            self._show()

    def _wait_for_pause(self, size):
        """Judge the text once typing pauses; False when no event loop can wait.

        Every keystroke in the browser sends the whole text again; each one
        restarts the timer, so only the text that stays for :data:`PAUSE`
        seconds is judged.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # plain Python, no kernel: judge at once
            return False
        self._pending = loop.call_later(PAUSE, self._settle)
        self._waiting()
        self.result.value = (
            f'<div class="mcp-verdict" style="line-height: 1.45"><p>{badge("waiting", "WAITING")} '
            f"{size:,} characters: the verdict follows when the typing pauses.</p></div>"
        )
        return True

    def _settle(self):
        self._pending = None
        self._show()

    def _cancel_pending(self):
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _show(self):
        self.judged += 1
        try:
            self.result.value = self._render()
        except Exception as exc:  # never a traceback; say what happened instead
            self.result.value = self._failed(exc)
        self.announcement.value = escape(self._spoken())

    def _waiting(self):
        """Forget the last verdict (a subclass clears its own data)."""

    def _failed(self, exc):
        """The markup that says the text could not be shown (after ``exc``)."""
        self._waiting()
        return (
            f"<p>{badge('invalid', 'ERROR')} The playground could not show this "
            f"({escape(type(exc).__name__)}).</p>"
        )
