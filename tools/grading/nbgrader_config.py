"""nbgrader settings for grading the course.

The course directory (``classroom/`` by default, made by ``make release``) has
its own ``nbgrader_config.py`` that loads this file, so every nbgrader command
run there, by make or by hand (``nbgrader formgrader`` too), uses these
settings. ``tools/make_learner.py`` reads them as well, so the learner copies
come out of the same generate_assignment pipeline as the release.

What is set here, and why:

* solutions become nbgrader's usual stub (``raise NotImplementedError()``);
* autograde runs ``JudgedExecute`` (judged_execute.py) in place of nbgrader's
  Execute: the student's cells run in the judge's sandbox (tools/judge), the
  release's test cells here, calling the student's functions in the sandbox;
  each cell under ``JudgedExecute.timeout`` seconds (30 unless the command
  line says otherwise), an endless loop costing one timeout, each cell's
  output cut at 100,000 characters;
* ``LimitOutput`` keeps at most 1,000 lines of a cell's printed text and 100
  of a traceback;
* a test cell the student deleted is put back (``OverwriteCells.add_missing_cells``);
  an edited one is restored by nbgrader's checksums, as always;
* feedback pages leave out the hidden tests (``ClearHiddenTests``);
* every HTML page made of a submission (formgrader's manual grading page, the
  feedback pages, any HTMLExporter run under these settings) is cleaned first
  by the course's one cleaner, ``CourseSanitizer`` (sanitize.py): no script or
  markup from a submission runs in a teacher's or student's browser; feedback
  pages also carry a Content-Security-Policy that runs no script (``FeedbackHTML``), and
  formgrader's grading page is the course's copy of its template (templates/formgrade), whose
  own scripts carry a nonce made for that page and whose policy runs no other script
  (formgrade_page.py); formgrader's list pages, which these settings cannot reach, are the
  server extension formgrader_pages.py's (enabled for the hub's teacher);
* ``nbgrader export`` writes the course's grades.csv (grades_csv.py);
* ``nbgrader collect`` from the exchange (a class on JupyterHub, formgrader's button too)
  is exchange.py's: the owner, the time and the files the system vouches for, and the
  last submission before the deadline counts;
* kernels talk over CurveZMQ, as everywhere else in the course.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from grades_csv import GradesCsv  # noqa: E402  (after sys.path is set)
from judged_execute import JudgedExecute  # noqa: E402  (after sys.path is set)
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor  # noqa: E402  (after sys.path is set)
from nbgrader.preprocessors import (  # noqa: E402  (after sys.path is set)
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    GetGrades,
    IgnorePattern,
    LimitOutput,
    SaveAutoGrades,
)

from tools.grading.exchange import CourseExchangeCollect  # noqa: E402  (after sys.path is set)
from tools.grading.formgrade_page import TEMPLATES, PageNonce  # noqa: E402  (after sys.path is set)
from tools.grading.sanitize import CourseSanitizer, FeedbackHTML  # noqa: E402  (after sys.path is set)

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (given by the config loader)

c.CourseDirectory.course_id = "mcp_lesson"

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# nbgrader's autograde steps, with the judged Execute in place of its own.
c.Autograde.autograde_preprocessors = [
    JudgedExecute,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
c.JudgedExecute.timeout = 30
c.JudgedExecute.max_output_chars = 100_000

# Feedback: no hidden tests.
c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, ClearHiddenTests]
# Nothing of a submission rendered as markup: every HTML exporter (formgrader's page, the
# feedback pages) runs the course's cleaner before its template sees the notebook.
c.HTMLExporter.preprocessors = [CourseSanitizer, PageNonce]
c.HTMLExporter.sanitize_html = True
# formgrader's page from the course's copy of its template (a nonce on each of its own scripts,
# a policy against any other); the feedback template stays nbgrader's. (formgrader and
# generate_feedback name nbgrader's folder only when the settings name none.)
import nbgrader  # noqa: E402  (after sys.path is set)

c.HTMLExporter.extra_template_basedirs = [
    TEMPLATES,
    os.path.join(
        os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates"
    ),
]
c.GenerateFeedback.exporter_class = FeedbackHTML
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100

c.OverwriteCells.add_missing_cells = True

# Kernels talk over CurveZMQ (as everywhere in the course): no "running over TCP
# without encryption" warning per kernel in the logs.
c.KernelManager.transport_encryption = "auto"

c.ExportApp.plugin_class = GradesCsv

c.ExchangeFactory.collect = CourseExchangeCollect
c.ExchangeCollect.before_duedate = True
