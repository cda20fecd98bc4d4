"""nbgrader's Execute step, hardened for a class's submissions (``GuardedExecute``).

nbgrader already runs every cell under ``Execute.timeout`` (interrupting the
kernel when it is reached) and keeps going after a cell's error. This
subclass adds what a real class needs, so that one submission can only cost
its own points and the teacher's log says what happened in one line each
(lines start with ``[grading]``, then the student, the notebook and the cell):

* **an endless loop costs one timeout:** the kernel loads ``kernel_guard.py``
  at start, which switches off the looping function after the interrupt; the
  cell's error says in words that it ran past the limit;
* **a kernel that dies** (``os._exit``, a crash) or **ignores the interrupt**
  (a loop that catches ``KeyboardInterrupt``) is restarted: that cell gets an
  error saying so, the following cells run in the fresh kernel;
* **a flood of output** is cut: each cell keeps at most ``max_output_chars``
  characters of output (the rest is dropped as it arrives, so memory stays
  bounded), and each line of an error at most ``max_error_line_chars``.
  nbgrader's ``LimitOutput`` later also caps the number of lines;
* **errors outside the test cells** are named: each solution cell that
  stopped with an error (the student's code raised, or called ``sys.exit``,
  when it was defined), and the first other cell that did (a broken import),
  with a count of the rest. A failing test cell needs no line: its points say it.

Settings (nbgrader config or command line): ``Execute.timeout`` (seconds per
cell), ``GuardedExecute.max_output_chars``, ``GuardedExecute.max_error_line_chars``.
"""

from pathlib import Path

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Integer

GUARD = Path(__file__).resolve().with_name("kernel_guard.py")
GUARD_LINE = "[grading] "
CUT_NOTE = ("\n[grading] output cut: this cell printed more than {limit:,} characters; "
            "the rest was dropped while grading\n")


def guard_arguments(path=GUARD):
    """The kernel command-line arguments that load the kernel guard at start."""
    code = f"__import__('runpy').run_path({str(path)!r})['install']()"
    return [f"--IPKernelApp.exec_lines={code}"]


def _text_size(content):
    """Characters of text an output message carries (stream text, data, traceback)."""
    size = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(str(value))
    for line in content.get("traceback", []) or []:
        size += len(line)
    return size


class GuardedExecute(Execute):
    """nbgrader's ``Execute`` with a guard against loops, dead kernels and output floods."""

    max_output_chars = Integer(
        100_000, help="Characters of output kept per cell; the rest is dropped (-1: no limit)"
    ).tag(config=True)

    max_error_line_chars = Integer(
        2_000, help="Characters kept of each line of an error's message and traceback"
    ).tag(config=True)

    # --- one line per incident in the teacher's log --------------------------------

    def _where(self, cell_index):
        info = (getattr(self, "resources", None) or {}).get("nbgrader", {})
        cell = self.nb.cells[cell_index] if 0 <= cell_index < len(self.nb.cells) else {}
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        label = f"cell {cell_index + 1}" + (f" ({grade_id})" if grade_id else "")
        return f"{info.get('student', '?')} {info.get('notebook', '?')}: {label}"

    def _incident(self, cell_index, text):
        self._reported.add(cell_index)
        self.log.warning("%s%s: %s", GUARD_LINE, self._where(cell_index), text)

    # --- the kernel loads the guard ---------------------------------------------------

    async def async_start_new_kernel(self, **kwargs):
        for argument in guard_arguments():
            if argument not in self.extra_arguments:
                self.extra_arguments = [*self.extra_arguments, argument]
        return await super().async_start_new_kernel(**kwargs)

    start_new_kernel = run_sync(async_start_new_kernel)  # what nbconvert's preprocess calls

    # --- timeouts: the error says what happened ---------------------------------------

    async def _async_handle_timeout(self, timeout, cell=None):
        index = next((i for i, c in enumerate(self.nb.cells) if c is cell), -1)
        words = f"this cell ran for more than {timeout} s and was stopped (an endless loop?)"
        self.error_on_timeout = {
            "ename": "CellTimeoutError",
            "evalue": words,
            "traceback": [f"\x1b[0;31mCellTimeoutError\x1b[0m: {words}"],
        }
        self._timed_out = index
        return await super()._async_handle_timeout(timeout, cell)

    # --- one notebook: fresh counters, and its errors reported at the end ------------

    def preprocess(self, nb, resources=None, km=None):
        self._used = {}
        self._cut = set()
        self._timed_out = None
        self._reported = set()
        nb, resources = super().preprocess(nb, resources, km)
        self._report_errors()
        return nb, resources

    def _report_errors(self):
        """A line for each solution cell that stopped with an error, and one for the
        first other cell outside the tests that did, with a count of the rest."""
        own, other = [], []
        for index, cell in enumerate(self.nb.cells):
            info = cell.get("metadata", {}).get("nbgrader", {})
            if index in self._reported or info.get("grade"):
                continue
            errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
            if errors:
                (own if info.get("solution") else other).append((index, errors[0]))
        for index, error in own + other[:1]:
            text = f"stopped with {error.get('ename')}: {str(error.get('evalue', ''))[:150]}"
            if other and index == other[0][0] and len(other) > 1:
                text += (f" (and {len(other) - 1} more cell{'s' * (len(other) > 2)} of the lesson "
                         "stopped with an error)")
            self._incident(index, text)

    # --- output floods -------------------------------------------------------------

    def output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        if msg.get("msg_type") == "error":
            content["evalue"] = self._short_line(content.get("evalue", ""))
            content["traceback"] = [self._short_line(line) for line in content.get("traceback", [])]
            return super().output(outs, msg, display_id, cell_index)
        limit = self.max_output_chars
        if limit < 0:
            return super().output(outs, msg, display_id, cell_index)
        used = self._used.get(cell_index, 0)
        size = _text_size(content)
        self._used[cell_index] = used + size
        if used + size <= limit:
            return super().output(outs, msg, display_id, cell_index)
        room = limit - used
        if msg.get("msg_type") == "stream" and room > 0:
            content["text"] = content["text"][:room]
            super().output(outs, msg, display_id, cell_index)
        if cell_index not in self._cut:
            self._cut.add(cell_index)
            outs.append(new_output("stream", name="stdout", text=CUT_NOTE.format(limit=limit)))
            self._incident(cell_index, f"printed more than {limit:,} characters: cut there")
        return None

    def _short_line(self, text):
        limit = self.max_error_line_chars
        if not isinstance(text, str) or limit < 0 or len(text) <= limit:
            return text
        return text[:limit] + f"... [{len(text) - limit:,} more characters cut]"

    # --- each cell: timeouts logged, dead or deaf kernels restarted ---------------------

    def preprocess_cell(self, cell, resources, index):
        self._timed_out = None
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._restart(cell, index, "the kernel died while this cell ran (did the code end "
                                       "Python, e.g. os._exit?)")
            return cell, self.resources
        except CellTimeoutError:
            self._restart(cell, index, f"this cell ran for more than {self.timeout} s and the "
                                       "kernel did not answer the interrupt")
            return cell, self.resources
        if self._timed_out == index:
            stopped = [line for out in cell.get("outputs", []) if out.get("output_type") == "stream"
                       for line in out.get("text", "").splitlines() if line.startswith(GUARD_LINE)]
            extra = "; " + "; ".join(s[len(GUARD_LINE):] for s in stopped) if stopped else ""
            self._incident(index, f"ran past the {self.timeout} s limit and was stopped{extra}")
        return cell, resources

    def _restart(self, cell, index, words):
        """Give ``cell`` an error saying ``words``, log it, and start a fresh kernel."""
        text = f"{words}; the cells after it ran in a fresh kernel"
        cell.setdefault("outputs", []).append(new_output(
            "error", ename="KernelRestarted", evalue=text,
            traceback=[f"\x1b[0;31mKernelRestarted\x1b[0m: {text}"]))
        self._incident(index, text)
        run_sync(self.km.restart_kernel)(now=True)
        run_sync(self.kc.wait_for_ready)(timeout=self.startup_timeout)

