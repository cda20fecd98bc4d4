"""JupyterHub's settings for a class of the course on one machine (`make hub`, tools/hub/hub.py).

Take this file to your own server: each setting says whether a real deployment keeps it or
replaces it. `make hub` passes the class's facts in the environment (the names below);
run by hand, `jupyterhub -f tools/hub/jupyterhub_config.py` takes the defaults.

    MCP_LESSON_HUB_STATE     the hub's own files (database, cookie secret)  build/hub/state
    MCP_LESSON_HUB_ENV       the users' Python environment                    /opt/mcp_lesson/hub-env
    MCP_LESSON_HUB_PORT      the port of the login page (127.0.0.1 only)      8000
    MCP_LESSON_HUB_TEACHER   the teacher's account                            teacher
    MCP_LESSON_HUB_STUDENTS  the students file: one account name a line       classroom/students.txt
    MCP_LESSON_EXCHANGE      nbgrader's exchange folder                       /srv/nbgrader/exchange
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tools.hub.settings import PERSON_MEMORY, PERSON_TASKS, Settings  # noqa: E402  (after sys.path is set)

hub = Settings.from_environment()
c = get_config()  # type: ignore[name-defined]  # noqa: F821  (given by the config loader)

# --- Where the hub listens: keep, with your own address. ------------------------------
# The login page and every user's server behind the proxy, on this machine only. A real
# server puts HTTPS in front (or sets c.JupyterHub.ssl_cert and ssl_key).
c.JupyterHub.bind_url = f"http://127.0.0.1:{hub.port}"
# Each person's server on an origin of its own: NAME.localhost:PORT, the hub on
# localhost:PORT. Without it every server is a path of one origin, and a page a student's
# server serves (their own ~/.jupyter settings can add one) runs as the hub's origin in the
# teacher's browser: it reads the teacher's files and opens a terminal as the teacher.
# Keep, with your own name: a real server uses a wildcard DNS name (*.hub.example.org)
# and a wildcard certificate; browsers take every *.localhost name to this machine.
c.JupyterHub.subdomain_host = hub.hub_url
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = hub.hub_port
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{hub.proxy_api_port}"
# The proxy (configurable-http-proxy, from the npm registry, pinned by tools/hub/package.json).
c.ConfigurableHTTPProxy.command = [str(hub.proxy)]
c.JupyterHub.db_url = f"sqlite:///{hub.state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(hub.state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(hub.state / "jupyterhub.pid")
# Stopping the hub stops every user's server (the default, said out loud).
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# --- Who may log in: REPLACE the authenticator in a real deployment. -------------------
# PAM: the machine's own accounts and passwords (`make hub` makes the accounts and gives
# each a password). A university replaces this line with its own login (OAuth, LDAP, LTI
# from the learning platform); the allowed users stay the teacher and the students file.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {hub.teacher, *hub.students()}
c.Authenticator.delete_invalid_users = True

# --- How each person's JupyterLab runs: keep. ------------------------------------------
# Each person's server runs as their own system account, from the users' environment.
# LocalProcessSpawner's way, within limits of each person's own (tools/hub/spawner.py): the
# server and all it starts in a memory and a pids cgroup of that person's, killed with the
# server, with a /dev/shm and SysV shared memory of its own inside that memory. Keep where
# the machine gives cgroups; containers (Kubernetes) set the same limits
# per person's container.
c.JupyterHub.spawner_class = "tools.hub.spawner.PersonSpawner"
c.Spawner.mem_limit = PERSON_MEMORY  # a student's; the teacher's is larger (give_role)
c.PersonSpawner.processes = PERSON_TASKS
c.PersonSpawner.records = str(hub.cgroup_records)  # what make hub ends after JupyterHub
c.Spawner.cmd = [str(hub.env / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120  # a busy machine starts a JupyterLab slowly
c.Spawner.http_timeout = 120


def give_role(spawner):
    """Each person's server gets their role's Jupyter settings (tools/hub/roles) and limits."""
    spawner.environment.update(hub.environment_for(spawner.user.name))
    spawner.mem_limit, spawner.processes = hub.limits_for(spawner.user.name)
    spawner.delegate = hub.delegates(spawner.user.name)


c.Spawner.pre_spawn_hook = give_role
