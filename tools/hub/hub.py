"""`make hub`: a class of the course on a real JupyterHub, on this machine (127.0.0.1).

    python tools/hub/hub.py [--port 8000] [--teacher NAME] [--students FILE]
                            [--exchange DIR] [--state DIR] [--env DIR]

As root: makes (or checks) the users' environment (environment.py), the teacher's and the
students' accounts (accounts.py; the students file holds one name a line, and is made
with an example when missing), nbgrader's exchange, then runs JupyterHub with its proxy
(jupyterhub_config.py) until Ctrl-C, which stops it and every person's server.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tools.hub import accounts, environment  # noqa: E402
from tools.hub.settings import HERE, PROXY, Settings  # noqa: E402

EXAMPLE_STUDENTS = """\
# The class: one account name a line (letters, digits, - and _). make hub makes each
# missing account, with a password it writes to the hub's passwords.txt.
student1
student2
"""


def readable_by_all(path):
    """Whether every account can reach ``path``: each folder above it searchable by all."""
    path = Path(path).resolve()
    return all(os.stat(folder).st_mode & 0o001 for folder in [path, *path.parents])


def problems(settings):
    """What stops a hub here, one line each (nothing: it can start)."""
    found = []
    if os.geteuid() != 0:
        found.append("make hub runs as root: it makes the class's accounts, and JupyterHub "
                     "starts each person's server as them (sudo make hub)")
    if not PROXY.exists():
        found.append(f"JupyterHub's proxy is not installed in {PROXY.parents[2]} (make venv "
                     "installs it with npm: apt-get install npm)")
    if not readable_by_all(ROOT):
        found.append(f"the course's folder {ROOT} cannot be reached by other accounts: put the "
                     "checkout where every account can read it (for example under /srv or /opt)")
    return found


def login_page(settings):
    return f"http://127.0.0.1:{settings.port}/hub/login"


def wait_for_login(settings, process, limit=180):
    """Poll the login page until it answers (True), the hub ends or ``limit`` s pass (False)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(login_page(settings), timeout=5) as reply:
                if reply.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def prepare(settings, say=print):
    """The environment, the accounts and the exchange of a class; the settings to run with."""
    if not settings.students_file.exists():
        settings.students_file.parent.mkdir(parents=True, exist_ok=True)
        settings.students_file.write_text(EXAMPLE_STUDENTS, encoding="utf-8")
        say(f"Wrote an example students file, {settings.students_file}: edit it (one name a line).")
    environment.build(settings.env, say=say)
    settings.state.mkdir(parents=True, exist_ok=True)
    settings.state.chmod(0o700)
    accounts.ensure_accounts([settings.teacher, *settings.students()],
                             settings.state / "passwords.txt", say=say)
    accounts.make_exchange(settings.exchange, settings.teacher)
    return settings


def start(settings):
    """JupyterHub, started (in its own process group) with the class's settings."""
    env = dict(os.environ, **settings.to_environment())
    env["PATH"] = f"{settings.env / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    log = open(settings.state / "jupyterhub.log", "a")
    return subprocess.Popen([str(settings.env / "bin" / "jupyterhub"), "-f", str(HERE / "jupyterhub_config.py")],
                            cwd=settings.state, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(process, limit=60):
    """Stop the hub as Ctrl-C does (it then stops every person's server and its proxy)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main(argv=None):
    default = Settings()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=default.port)
    parser.add_argument("--teacher", default=default.teacher)
    parser.add_argument("--students", type=Path, default=default.students_file)
    parser.add_argument("--exchange", type=Path, default=default.exchange)
    parser.add_argument("--state", type=Path, default=default.state)
    parser.add_argument("--env", type=Path, default=default.env)
    args = parser.parse_args(argv)
    settings = Settings(state=args.state.resolve(), env=args.env, port=args.port, teacher=args.teacher,
                        students_file=args.students.resolve(), exchange=args.exchange)
    found = problems(settings)
    if found:
        print("\n".join(found))
        return 1
    began = time.monotonic()
    prepare(settings)
    process = start(settings)
    try:
        if not wait_for_login(settings, process):
            print(f"JupyterHub did not start: its log is {settings.state / 'jupyterhub.log'}")
            return 1
        print(f"The class's JupyterHub is up ({time.monotonic() - began:.1f} s): log in at "
              f"{login_page(settings)}", flush=True)
        print(f"  teacher: {settings.teacher}; students: {', '.join(settings.students()) or 'none'} "
              f"(passwords of the accounts made here: {settings.state / 'passwords.txt'})")
        print("  Ctrl-C stops it and every person's server.", flush=True)
        process.wait()
        return process.returncode
    except KeyboardInterrupt:
        print("Stopping the hub and every person's server...")
        return 0
    finally:
        stop(process)


if __name__ == "__main__":
    sys.exit(main())
