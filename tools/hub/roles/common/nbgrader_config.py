# nbgrader's settings for every account of a class on JupyterHub (tools/hub): the course's
# id and its exchange. Each account's Jupyter server reads them through JUPYTER_CONFIG_PATH,
# which the hub sets (tools/hub/jupyterhub_config.py).
import os

from tools.grading.course_dir import STUDENT_BYTES  # (the course is on PYTHONPATH)

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (given by the config loader)
c.CourseDirectory.course_id = "mcp_lesson"
# The exchange folder the hub made (root's, mode 1777: every account writes into it, and
# none renames or removes what another made).
c.Exchange.root = os.environ.get("MCP_LESSON_EXCHANGE", "/srv/nbgrader/exchange")
# A submission over STUDENT_BYTES (the most the course's collect takes of one student) is
# refused at submit time, with nbgrader's "Directory size is too big" (in kilobytes of
# 1,000 bytes, as nbgrader counts them).
c.CourseDirectory.max_dir_size = STUDENT_BYTES // 1000
# A submission's folders and files are the student's and the teacher's group's alone (nbgrader
# makes the folder 0777 and its files 0644: readable, and writable, by any account that learns
# its name).
from tools.hub.submit import CourseExchangeSubmit  # noqa: E402  (after the setup above)

c.ExchangeFactory.submit = CourseExchangeSubmit
