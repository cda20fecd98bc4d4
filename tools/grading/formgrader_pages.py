"""formgrader's other pages (the lists of assignments, submissions and students) run their own
scripts and no other, and write what their address says as text.

nbgrader 0.9.6 renders those pages with a Jinja environment of its own, made without
autoescape, from a template folder its settings cannot change: the assignment's and notebook's
names taken from the page's address go into the page as they are, inside a ``<script>`` among
other places. A link such as ``.../formgrader/manage_submissions/%22%3Balert(1)%3B%22`` (in a
submission's markdown, say) ran script as the teacher who followed it.

This Jupyter server extension (enabled for the teacher's server of a class on JupyterHub by
``tools/hub/roles/teacher/jupyter_server_config.d``) puts a course environment in the place of
formgrader's, on nbgrader's own templates:

* autoescape on: every value goes into the page as text;
* each ``<script`` of the templates' own source carries a nonce made afresh for each page, their
  ``onclick`` handlers (Add new assignment, Add new student, Show All Names) are listeners set
  by such scripts, and the page's
  first element is a Content-Security-Policy that runs only scripts carrying the nonce
  (formgrade_page.py's policy, with no CDN).

The grading page itself is nbconvert's, and the course's nbgrader settings install its copy
(formgrade_page.py); this module does not touch it. The extension also gives formgrader's
Autograde and Generate Feedback buttons the course's command, in a process of its own
(formgrader_buttons.py), and its sidebar a page of what the class missed
(formgrader_insight.py).
"""

import re
import secrets

from jinja2 import Environment, FileSystemLoader, Template
from markupsafe import Markup

from tools.grading import formgrader_insight
from tools.grading.formgrade_page import grading_policy

SETTING = "nbgrader_jinja2_env"
POLICY_META = '<meta http-equiv="Content-Security-Policy" content="{{ csp_policy }}">'
#: An element of a template's own source with an onclick handler (two links and a button in
#: nbgrader 0.9.6: Add new assignment, Add new student, Show All Names).
HANDLED = re.compile(r'<(\w+)([^<>]*?)\s+onclick="([^"]*)"([^<>]*)>', re.IGNORECASE)


def _as_listener(source):
    found = HANDLED.search(source)
    while found:
        tag, before, code, after = found.groups()
        mark = f"course-click-{found.start()}"
        start = f'<{tag}{before} data-course-click="{mark}"{after}>'
        closing = source.lower().find(f"</{tag.lower()}>", found.end())
        end = len(source) if closing < 0 else closing + len(tag) + 3
        listener = (
            f'<script nonce="{{{{ csp_nonce }}}}">document.querySelector(\'[data-course-click="{mark}"]\')'
            f".addEventListener('click', function () {{ {code} }});</script>"
        )
        source = (
            source[: found.start()] + start + source[found.end() : end] + listener + source[end:]
        )
        found = HANDLED.search(source)
    return source


def with_nonces(source):
    """A template's source with the page's policy first in its ``<head>``, a nonce on each of its
    own scripts, and its onclick handlers made listeners set by such scripts. (The source, not
    the page: a value rendered into the page gets no nonce.)"""
    source = re.sub(r"<script\b", '<script nonce="{{ csp_nonce }}"', source)
    source = re.sub(r"<head>", "<head>\n" + POLICY_META, source, count=1, flags=re.IGNORECASE)
    return _as_listener(source)


class NoncedLoader(FileSystemLoader):
    """nbgrader's templates (and the course's page beside them, formgrader_insight.py's), each
    read through :func:`with_nonces`, the sidebar with its link to what the class missed."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        return with_nonces(formgrader_insight.with_link(source)), filename, uptodate


class NoncedTemplate(Template):
    """A page rendered with a nonce of its own and the policy that names it."""

    def render(self, *args, **kwargs):
        nonce = secrets.token_urlsafe(18)
        kwargs.update(
            csp_nonce=nonce, csp_policy=Markup(grading_policy(nonce, mathjax=False))
        )  # (no ")
        return super().render(*args, **kwargs)


def environment(template_path):
    """The environment formgrader's pages are rendered with, on the templates at ``template_path``."""
    made = Environment(
        loader=NoncedLoader([template_path, str(formgrader_insight.TEMPLATES)]), autoescape=True
    )
    made.template_class = NoncedTemplate
    return made


def install(web_app):
    """Put the course's environment in the place of formgrader's, once formgrader has made its own."""
    from nbgrader.server_extensions.formgrader import handlers

    if SETTING in web_app.settings:
        from tools.grading import formgrader_buttons

        web_app.settings[SETTING] = environment(handlers.template_path)
        formgrader_buttons.install(web_app)
        formgrader_insight.install(web_app)
        return True
    return False


def _load_jupyter_server_extension(server_app):
    if not install(server_app.web_app):
        # formgrader loads after this extension: install once every extension has loaded (before
        # the server answers its first request).
        from tornado.ioloop import IOLoop

        def later():
            if not install(server_app.web_app):
                server_app.log.warning(
                    "mcp_lesson: formgrader is not loaded; its pages are left as they are"
                )

        IOLoop.current().add_callback(later)
    server_app.log.info(
        "mcp_lesson: formgrader's pages escape their values and run only their own scripts; "
        "its Autograde and Generate Feedback run the course's command in a process of their own"
    )


def _jupyter_server_extension_points():
    return [{"module": "tools.grading.formgrader_pages"}]


load_jupyter_server_extension = _load_jupyter_server_extension
