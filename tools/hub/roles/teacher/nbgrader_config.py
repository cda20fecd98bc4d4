# nbgrader's settings for the teacher's account of a class on JupyterHub (tools/hub), on top
# of the class's own (../common): the course directory, and the course's grading settings
# (tools/grading/nbgrader_config.py), so that formgrader's buttons grade as `make autograde`
# does, student code in the judge's sandbox only.
import os

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (given by the config loader)
here = os.path.dirname(os.path.abspath(__file__))
load_subconfig(os.path.join(here, "..", "..", "..", "grading", "nbgrader_config.py"))  # type: ignore[name-defined]  # noqa: F821  (given by the config loader)
c = get_config()  # type: ignore[name-defined]  # noqa: F821  (given by the config loader)
c.CourseDirectory.root = os.environ.get("MCP_LESSON_COURSE", os.path.expanduser("~/course"))
