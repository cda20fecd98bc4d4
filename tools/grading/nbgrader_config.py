"""nbgrader settings for grading the course.

The course directory (``classroom/`` by default, made by ``make release``) has
its own ``nbgrader_config.py`` that loads this file, so every nbgrader command
run there, by make or by hand (``nbgrader formgrader`` too), uses these
settings. ``tools/make_learner.py`` reads them as well, so the learner copies
come out of the same generate_assignment pipeline as the release.

What is set here, and why:

* solutions become nbgrader's usual stub (``raise NotImplementedError()``);
* autograde runs ``GuardedExecute`` (execute_guard.py) in place of nbgrader's
  Execute: each cell under ``Execute.timeout`` seconds (30 unless the command
  line says ``--Execute.timeout=N``), an endless loop costing one timeout, a
  dead kernel restarted, each cell's output cut at 100,000 characters;
* ``LimitOutput`` keeps at most 1,000 lines of a cell's printed text and 100
  of a traceback;
* a test cell the student deleted is put back (``OverwriteCells.add_missing_cells``);
  an edited one is restored by nbgrader's checksums, as always;
* ``nbgrader export`` writes the course's grades.csv (grades_csv.py);
* kernels talk over CurveZMQ, as everywhere else in the course.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput, SaveAutoGrades)

from execute_guard import GuardedExecute  # noqa: E402
from grades_csv import GradesCsv  # noqa: E402

c = get_config()  # noqa: F821  (given by the config loader)

c.CourseDirectory.course_id = "mcp_lesson"

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# nbgrader's autograde steps, with the guarded Execute in place of its own.
c.Autograde.autograde_preprocessors = [
    GuardedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
    AssignLatePenalties, CheckCellMetadata,
]
c.Execute.timeout = 30
c.GuardedExecute.max_output_chars = 100_000
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100

c.OverwriteCells.add_missing_cells = True

# Kernels talk over CurveZMQ (as everywhere in the course): no "running over TCP
# without encryption" warning per kernel in the logs.
c.KernelManager.transport_encryption = "auto"

c.ExportApp.plugin_class = GradesCsv
