"""The lessons, said once: their numbers, files, the learner's module each
writes, whether its exercise cells are the course's own core, and why the browser
cannot run it, where it cannot.

Everything that lists lessons reads this table: the start page's contents and the
lesson helpers (:mod:`mcp_lesson.course`), the learner's package
(:data:`mcp_lesson.exercises.registry.MODULES`), the core's export
(:data:`mcp_lesson.exercises.core_export.CORE_LESSONS`) and the JupyterLite site
(tools/site/build.py). This module imports nothing, so any module may import it.
"""

from typing import NamedTuple


class Lesson(NamedTuple):
    """One lesson of the course."""

    #: Its number, as its file name starts ("03").
    number: str
    #: The master's file name, in notebooks/ (the learner copy has the same name).
    filename: str
    #: The module of the learner's package its ``#| export`` cells go into
    #: (``my_mcp/<module>.py``), or None when it exports nothing.
    module: str | None = None
    #: True when its exercise cells, exported from the master, are part of
    #: mcp_lesson/core (``make export``).
    core: bool = False
    #: Why the in-browser site cannot run it (it starts a process), or None.
    local_only: str | None = None


LESSONS = (
    Lesson("00", "00_start_here.ipynb"),
    Lesson("01", "01_messages.ipynb", "kinds", core=True),
    Lesson("02", "02_building_requests.ipynb", "messages", core=True),
    Lesson("03", "03_classifying.ipynb", "classification", core=True),
    Lesson("04", "04_errors.ipynb", "errors", core=True),
    Lesson("05", "05_playground.ipynb"),
    Lesson(
        "06",
        "06_real_server.ipynb",
        "conversation",
        core=True,
        local_only=(
            "it starts the course's calculator MCP server as a separate process and talks "
            "to it over that process's stdin and stdout."
        ),
    ),
    Lesson(
        "07",
        "07_disagreements.ipynb",
        local_only=(
            "it starts a real MCP server as a separate process, and asks the official "
            "`mcp` Python SDK (which is not in this page's Python) for its verdicts."
        ),
    ),
    Lesson("08", "08_revisions.ipynb", "revisions", core=True),
    Lesson("09", "09_http.ipynb", "transport", core=True),
    Lesson("10", "10_live_traffic.ipynb", "traffic", core=True),
    Lesson("11", "11_your_own_server.ipynb", "server", core=True),
)

#: The lessons' file names, in order.
FILES = tuple(lesson.filename for lesson in LESSONS)
#: The module of the learner's package each lesson exports into, by lesson number,
#: in the lessons' order (a module may import from those before it).
MODULES = {lesson.number: lesson.module for lesson in LESSONS if lesson.module}
#: The lessons whose exercise cells are the core of mcp_lesson (mcp_lesson/core/).
CORE = tuple(lesson.number for lesson in LESSONS if lesson.core)
#: Why the site cannot run a lesson, by file name.
LOCAL_ONLY = {lesson.filename: lesson.local_only for lesson in LESSONS if lesson.local_only}
