"""Which code a check judges: the version of a function that ran, and whether the cell on
screen that defines it ran since.

A check judges the function object it is given: the version that last ran. When the learner
then edits its cell and the edit does not run (a SyntaxError, an error before the ``def`` is
reached), the name still holds the earlier version, and a check that said nothing would
judge code that is not on the screen. :func:`watch` registers two IPython hooks: before a
cell runs, they note the objects its ``def`` and ``class`` lines name; after it, which of
those names the cell gave a new object (that version ran, at that time) and which it left as
they were because it stopped (:func:`stale_note` then says so, in one line). Outside IPython
nothing is watched and nothing is said.
"""

import datetime
import re
from typing import NamedTuple

#: The names a cell's ``def`` and ``class`` lines define, read as text: a cell that does not
#: parse still names what it meant to define.
_DEFINES = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


class Stopped(NamedTuple):
    """A cell that meant to define a name and stopped before it did."""

    #: "a SyntaxError", "a NameError"...
    error: str
    #: The line of the cell where it stopped (None when unknown), and when (HH:MM).
    line: int | None
    at: str
    #: When the version the name holds ran (HH:MM), or None when not seen.
    ran_at: str | None


_STATE: dict = {"shell": None, "before": {}, "ran": {}, "stale": {}}


def _now():
    return datetime.datetime.now().strftime("%H:%M")


def names_defined(source):
    """The names a cell's ``def`` and ``class`` lines define (at any indent), in order."""
    found = []
    for name in _DEFINES.findall(source if isinstance(source, str) else ""):
        if name not in found:
            found.append(name)
    return found


def _article(name):
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def where_it_stopped(error):
    """``(the error in words, the cell's line where it stopped or None)``: "a SyntaxError", 4."""
    if error is None:
        return "an error", None
    words = _article(type(error).__name__)
    if isinstance(error, SyntaxError):
        return words, error.lineno
    frame = error.__traceback__
    while frame is not None:  # the first module frame after IPython's own is the cell's
        if frame.tb_frame.f_code.co_name == "<module>":
            return words, frame.tb_lineno
        frame = frame.tb_next
    return words, None


def _before(info):
    shell = _STATE["shell"]
    source = getattr(info, "raw_cell", "") or ""
    _STATE["before"] = {name: shell.user_ns.get(name, _ABSENT) for name in names_defined(source)}


_ABSENT = object()


def _after(result):
    shell = _STATE["shell"]
    before, _STATE["before"] = _STATE["before"], {}
    error = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
    for name, earlier in before.items():
        now = shell.user_ns.get(name, _ABSENT)
        if now is not earlier:  # this cell's version ran
            _STATE["ran"][name] = (now, _now())
            _STATE["stale"].pop(name, None)
        elif error is not None:  # it stopped before the def: the name holds what it held
            words, line = where_it_stopped(error)
            ran = _STATE["ran"].get(name)
            ran_at = ran[1] if ran is not None and ran[0] is now else None
            _STATE["stale"][name] = (now, Stopped(words, line, _now(), ran_at))
        else:  # the same object again (a cell that defines it only under a condition)
            _STATE["stale"].pop(name, None)


def watch():
    """Start watching the cells of the IPython shell that runs now (once per shell); False
    outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with JupyterLab
        return False
    shell = get_ipython()
    if shell is None:
        return False
    if _STATE["shell"] is not shell:
        if _STATE["shell"] is not None:
            for event, hook in (("pre_run_cell", _before), ("post_run_cell", _after)):
                try:
                    _STATE["shell"].events.unregister(event, hook)
                except ValueError:
                    pass
        _STATE.update(shell=shell, before={}, ran={}, stale={})
        shell.events.register("pre_run_cell", _before)
        shell.events.register("post_run_cell", _after)
    return True


def stopped_cell(fn):
    """The :class:`Stopped` of the latest cell that meant to redefine ``fn`` (by its name) and
    stopped before it did, while ``fn`` is still what that name holds; else None."""
    name = getattr(fn, "__name__", None)
    found = _STATE["stale"].get(name) if isinstance(name, str) else None
    if found is None or found[0] is not fn:
        return None
    return found[1]


def stale_note(fn):
    """One line saying that the cell on screen that defines ``fn`` did not run, so the check
    judges the version that ran before it; None when there is nothing to say."""
    stopped = stopped_cell(fn)
    if stopped is None:
        return None
    name = fn.__name__
    at = f" at line {stopped.line}" if stopped.line else ""
    ran = (
        f"the version you ran at {stopped.ran_at}"
        if stopped.ran_at
        else "the version that ran before it"
    )
    return (
        f"(the cell that defines {name} stopped{at} with {stopped.error} at {stopped.at}, so "
        f"{name} is still {ran}: this check judges that one, not the code on the screen)"
    )
