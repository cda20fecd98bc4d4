"""formgrader's Autograde and Generate Feedback buttons run the course's own command, the one
``make autograde`` and ``make feedback`` run, in a process of its own.

nbgrader 0.9.6's handlers for those buttons call its API in the Jupyter server's own process,
and wait for it there: nbgrader, its converters and the judge's side of a submission's tests
ran inside the teacher's JupyterLab, which answered nothing for as long (a submission whose
markup cost the cleaner 270 s froze it for 270 s), and whatever the grading held in memory
was the server's. Here each button starts ``classroom.py`` (:func:`command`: one function, so
that the hub can run it in a cgroup of its own), waits for it without blocking the server,
and answers as nbgrader's API does (``success``, ``log``, ``error``).

:func:`install` (called by formgrader_pages.py's server extension, once formgrader has added
its handlers) puts these handlers in the place of nbgrader's, on the same addresses.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

from tornado import web

ROOT = Path(__file__).resolve().parents[2]
#: Characters of a command's output that a button's answer shows (the rest is in its log).
SHOWN = 200_000


def command(course, step, assignment, student=None):
    """The course's command for ``step`` (``autograde`` or ``feedback``) of ``assignment`` in
    ``course``, for ``student`` only when given: the Makefile's, as a list of arguments. (The
    hub wraps it to run it in a cgroup of its own.)"""
    words = [
        sys.executable,
        str(ROOT / "tools" / "grading" / "classroom.py"),
        "--course",
        str(course),
        step,
        assignment,
    ]
    return words + (["--student", student] if student else [])


async def run(words, cwd=None):
    """Run ``words`` in a process (and session) of its own, without blocking the server; its
    answer as nbgrader's API gives one: ``{"success": bool, "log": text}`` (and ``error``).
    On a class's hub the process also runs in cgroups of its own, inside the teacher's
    (:func:`tools.hub.apart.wrapped`: elsewhere the command is started as it is)."""
    from tools.hub.apart import wrapped

    process = await asyncio.create_subprocess_exec(
        *wrapped(words),
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    kept, size = [], 0
    while True:
        chunk = await process.stdout.read(1 << 16)
        if not chunk:
            break
        if size < SHOWN:
            kept.append(chunk[: SHOWN - size])
        size += len(chunk)
    code = await process.wait()
    log = b"".join(kept).decode("utf-8", "replace")
    if size > SHOWN:
        log += f"\n(and {size - SHOWN:,} more characters: see the course's logs/ folder)\n"
    result = {"success": code == 0, "log": log}
    if code != 0:
        result["error"] = (
            f"{Path(words[1]).name} {' '.join(words[4:])} ended with exit status {code}"
        )
    return result


def _handler(step):
    from nbgrader.server_extensions.formgrader.base import (
        BaseApiHandler,
        check_notebook_dir,
        check_xsrf,
    )

    class CourseCommand(BaseApiHandler):
        """formgrader's button for ``step``, as the course's command in a process of its own."""

        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        async def post(self, assignment_id, student_id=None):
            from tools.grading.course_dir import SAFE_NAME

            for name in (assignment_id, student_id):
                if name is not None and not SAFE_NAME.fullmatch(name):
                    raise web.HTTPError(
                        400, "an assignment or student id is letters, digits and _ . @ - only"
                    )
            course = self.coursedir.root
            result = await run(
                command(course, step, assignment_id, student_id), cwd=os.fspath(course)
            )
            self.write(json.dumps(result))

    CourseCommand.__name__ = CourseCommand.__qualname__ = f"Course{step.title()}Handler"
    return CourseCommand


def install(web_app):
    """Put the course's handlers in the place of nbgrader's Autograde and Generate Feedback
    handlers, wherever formgrader added them; the number replaced."""
    from nbgrader.server_extensions.formgrader import apihandlers

    ours = {
        apihandlers.AutogradeHandler: _handler("autograde"),
        apihandlers.GenerateAllFeedbackHandler: _handler("feedback"),
        apihandlers.GenerateFeedbackHandler: _handler("feedback"),
    }
    return _replace(web_app.default_router, ours) + _replace(web_app.wildcard_router, ours)


def _replace(router, ours):
    """Replace, in ``router`` and the routers inside it, each rule's target that is in ``ours``."""
    count = 0
    for rule in getattr(router, "rules", []):
        if isinstance(rule.target, type) and rule.target in ours:
            rule.target = ours[rule.target]
            count += 1
        elif hasattr(rule.target, "rules"):
            count += _replace(rule.target, ours)
    return count
