"""The student version of a lesson master, made by nbgrader's generate_assignment steps.

``nbgrader generate_assignment`` (what ``make release`` runs) turns a master
into the version a class gets: it locks the test cells, replaces each
solution region with a stub, clears outputs, strips the hidden tests and
records checksums. :func:`student_notebook` runs exactly those steps, the
``GenerateAssignment.preprocessors`` list, under the course's nbgrader
settings (nbgrader_config.py here), with two differences that change
nothing in the notebook itself:

* no gradebook: ``SaveCells`` is off, as with ``generate_assignment --no-db``
  (the release is what fills the gradebook);
* a solution region in a cell without nbgrader metadata (a lesson that is not
  graded, such as 06) is stubbed all the same, as ``--no-metadata`` would
  (``ClearSolutions.enforce_metadata`` off); nbgrader refuses such a cell in a
  release, so a graded lesson must have none.

So the learner copies (tools/make_learner.py) and the release are made one
way; tests/classroom/test_grading.py checks that a released notebook and its learner
copy hold the same cells.
"""

import copy
from pathlib import Path

import nbformat
from nbconvert.exporters import NotebookExporter
from nbgrader.converters import GenerateAssignment
from traitlets.config import Config, PyFileConfigLoader

CONFIG = Path(__file__).resolve().with_name("nbgrader_config.py")


def course_config(path=CONFIG):
    """The course's nbgrader settings as a traitlets ``Config``."""
    loader = PyFileConfigLoader(path.name, path=str(path.parent))
    return loader.load_config()


def pipeline_config(path=CONFIG):
    """The course settings, plus no gradebook and stubs in cells without metadata."""
    config = copy.deepcopy(course_config(path))
    extra = Config()
    extra.SaveCells.enabled = False
    extra.GenerateAssignment.no_database = True
    extra.ClearSolutions.enforce_metadata = False
    extra.Exporter.default_preprocessors = []
    config.merge(extra)
    return config


def student_notebook(master, config=None):
    """The student version of the notebook file ``master``, as a NotebookNode."""
    master = Path(master)
    config = config if config is not None else pipeline_config()
    steps = GenerateAssignment(config=config).preprocessors
    exporter = NotebookExporter(config=config)
    for step in steps:
        exporter.register_preprocessor(step)
    resources = {
        "unique_key": master.stem,
        "metadata": {"path": str(master.parent)},
        "nbgrader": {
            "notebook": master.stem,
            "assignment": master.stem,
            "student": ".",
            "db_url": "sqlite:///:memory:",
        },
    }
    nb = nbformat.read(str(master), as_version=4)
    text, _ = exporter.from_notebook_node(nb, resources=resources)
    return nbformat.reads(text, as_version=4)
