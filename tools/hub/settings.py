"""The facts of one class on JupyterHub, and each person's settings by role.

`make hub` (hub.py) decides them and hands them to JupyterHub (jupyterhub_config.py) in
the environment, under the names of :data:`NAMES`; both read them here.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ROLES = HERE / "roles"
PROXY = HERE / "node_modules" / ".bin" / "configurable-http-proxy"

#: What each student's server and all it starts may use at once (tools/hub/spawner.py):
#: memory in bytes, and tasks (processes and threads: JupyterLab takes about 30, a kernel
#: about 10). The teacher's server grades the class (formgrader's Autograde runs the judge
#: from it): it gets TEACHER_SHARE times as much.
PERSON_MEMORY = 2 * 1024**3
PERSON_TASKS = 256
TEACHER_SHARE = 4
#: The part of a person's memory their private /dev/shm (and their SysV shared memory) may
#: hold (tools/hub/shared_memory.py): a quarter, 512 MiB for a student.
SHARED_MEMORY_SHARE = 4

#: The environment variable with which a person's server is told that its grading runs go
#: in cgroups of their own (apart.py).
APART = "MCP_LESSON_HUB_APART"

#: The environment variable of each setting.
NAMES = {
    "state": "MCP_LESSON_HUB_STATE",
    "env": "MCP_LESSON_HUB_ENV",
    "port": "MCP_LESSON_HUB_PORT",
    "teacher": "MCP_LESSON_HUB_TEACHER",
    "students_file": "MCP_LESSON_HUB_STUDENTS",
    "exchange": "MCP_LESSON_EXCHANGE",
}


def read_students(path):
    """The account names of a students file: one a line; blank lines and # comments skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    names = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [name for name in names if name]


@dataclass(frozen=True)
class Settings:
    state: Path = ROOT / "build" / "hub" / "state"
    env: Path = Path("/opt/mcp_lesson/hub-env")
    port: int = 8000
    teacher: str = "teacher"
    students_file: Path = ROOT / "classroom" / "students.txt"
    exchange: Path = Path("/srv/nbgrader/exchange")
    proxy: Path = field(default=PROXY)

    @classmethod
    def from_environment(cls, environ=os.environ):
        given = {key: environ[name] for key, name in NAMES.items() if environ.get(name)}
        kinds = {"port": int, "teacher": str}
        return cls(**{key: kinds.get(key, Path)(value) for key, value in given.items()})

    def to_environment(self):
        return {name: str(getattr(self, key)) for key, name in NAMES.items()}

    # The hub's own port and its proxy's API, the next two after the login page's.
    @property
    def hub_port(self):
        return self.port + 1

    @property
    def proxy_api_port(self):
        return self.port + 2

    # Where people reach the class: the hub on localhost, each person's server on a host
    # of its own, NAME.localhost (JupyterHub's subdomain_host; browsers take every
    # *.localhost name to this machine), so that no page one person's server serves shares
    # an origin with another's server or with the hub.
    @property
    def hub_url(self):
        return f"http://localhost:{self.port}"

    def server_url(self, name):
        """The address of ``name``'s server (a name that is a valid host label already, as
        the test's are: JupyterHub encodes others)."""
        return f"http://{name}.localhost:{self.port}/user/{name}"

    @property
    def cgroup_records(self):
        """Where each running server's cgroups are written down (tools/hub/cgroups.py)."""
        return self.state / "cgroups"

    def students(self):
        return read_students(self.students_file)

    def role_of(self, name):
        return "teacher" if name == self.teacher else "student"

    def limits_for(self, name):
        """(memory in bytes, tasks) that ``name``'s server and all it starts may use."""
        share = TEACHER_SHARE if self.role_of(name) == "teacher" else 1
        return PERSON_MEMORY * share, PERSON_TASKS * share

    def delegates(self, name):
        """Whether ``name`` may make cgroups inside their own (the teacher: the judge's
        sandboxes and formgrader's grading runs each get limits of their own, within the
        teacher's; tools/hub/apart.py)."""
        return self.role_of(name) == "teacher"

    def environment_for(self, name):
        """The environment of ``name``'s Jupyter server: the users' Python first on PATH,
        the course on the module path, and the role's Jupyter settings (tools/hub/roles:
        the Assignments tab for students, formgrader for the teacher, the exchange for
        both); for the teacher, that grading runs go apart (apart.py)."""
        return {
            "PATH": f"{self.env / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "JUPYTER_CONFIG_PATH": os.pathsep.join(
                [str(ROLES / self.role_of(name)), str(ROLES / "common")]
            ),
            "MCP_LESSON_EXCHANGE": str(self.exchange),
            **({APART: "1"} if self.delegates(name) else {}),
        }
