"""formgrader's manual grading page runs its own scripts and no other: a second wall
behind the cleaner (sanitize.py), for a submission the cleaner might one day miss.

formgrader renders a submission with an ``HTMLExporter`` and nbgrader's ``formgrade`` template,
whose page has inline scripts of its own (its variables, MathJax's set-up, the tooltips) and two
``onclick`` handlers, so a policy that forbids inline script would stop formgrader itself. The
course's nbgrader settings put the course's copy of that template first
(``templates/formgrade``, :data:`TEMPLATES`): every script in it carries a nonce made afresh for
each page (:class:`PageNonce`), the handlers are listeners set by one of those scripts, and the
page's first element is a Content-Security-Policy (:func:`grading_policy`) that runs a script
only when it carries that nonce: an injected ``<script>``, ``onerror=`` or ``javascript:`` link
runs nothing. The policy has no ``'unsafe-inline'``, no ``'unsafe-eval'`` and no ``'self'`` in
``script-src`` (under ``'self'`` any ``.js`` file the teacher's server serves, a student's
among them, could be loaded as a script); scripts come from nowhere else but MathJax's folder on
the CDN (MathJax loads its parts by itself, without the nonce).

Whatever the order: formgrader makes its exporter once, as the teacher's server starts, and its
own settings name nbgrader's template folder, which put back over any folder the settings files
named; only a course folder's own ``nbgrader_config.py``, read after, set the course's. So a
server started before ``~/course`` existed (a class's hub: log in, then release) had nbgrader's
stock page until it was restarted. This module is also a Jupyter server extension (enabled for
the teacher of a class's hub by ``tools/hub/roles/teacher/jupyter_server_config.d``) that puts
the course's folder first in formgrader's exporter, with the nonce and the cleaner, as the
server starts (:func:`install`), whatever exists then.
"""

import os
import secrets

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

#: The course's template folders, put before nbgrader's (nbgrader_config.py).
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
#: Where the page's MathJax comes from (nbconvert's own CDN address, its folder).
MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/"
MATHJAX_FOLDER = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"


def grading_policy(nonce, mathjax=True):
    """The Content-Security-Policy of one of formgrader's pages whose scripts carry ``nonce``
    (with MathJax's CDN folder, for the grading page)."""
    cdn = f" {MATHJAX_FOLDER}" if mathjax else ""
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'nonce-{nonce}'{cdn}",
            f"style-src 'self' 'unsafe-inline'{cdn}",
            f"font-src 'self' data:{cdn}",
            "img-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "frame-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
        ]
    )


def install(web_app):
    """Put in formgrader's place (``web_app``'s settings) an exporter that renders the course's
    grading page: formgrader's settings with the course's template folder first, and the
    cleaner and the page's nonce among its steps. False when formgrader has made no exporter
    (yet)."""
    import copy

    from nbconvert.exporters import HTMLExporter

    from tools.grading.sanitize import CourseSanitizer

    exporter = web_app.settings.get("nbgrader_exporter")
    if exporter is None:
        return False
    config = copy.deepcopy(exporter.config)
    given = list(exporter.extra_template_basedirs)
    config.HTMLExporter.extra_template_basedirs = [
        TEMPLATES,
        *(folder for folder in given if folder != TEMPLATES),
    ]
    config.HTMLExporter.template_name = "formgrade"
    steps = list(exporter.preprocessors)
    for step in (CourseSanitizer, PageNonce):
        if step not in steps:
            steps.append(step)
    config.HTMLExporter.preprocessors = steps
    web_app.settings["nbgrader_exporter"] = HTMLExporter(config=config)
    return True


def _load_jupyter_server_extension(server_app):
    if not install(server_app.web_app):
        from tornado.ioloop import IOLoop

        def later():  # formgrader loads after this extension: once every extension has loaded
            if not install(server_app.web_app):
                server_app.log.warning(
                    "mcp_lesson: formgrader is not loaded; its grading page is left as it is"
                )

        IOLoop.current().add_callback(later)
    server_app.log.info(
        "mcp_lesson: formgrader's grading page is the course's (its own scripts only)"
    )


def _jupyter_server_extension_points():
    return [{"module": "tools.grading.formgrade_page"}]


load_jupyter_server_extension = _load_jupyter_server_extension


class PageNonce(Preprocessor):
    """Gives the page about to be rendered a nonce of its own and the policy that names it
    (``resources['csp_nonce']``, ``resources['csp_policy']``, ``resources['csp_mathjax']``),
    which the course's ``formgrade`` template writes into the page. On by default."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        nonce = secrets.token_urlsafe(18)
        resources["csp_nonce"] = nonce
        resources["csp_policy"] = grading_policy(nonce)
        resources["csp_mathjax"] = MATHJAX
        return nb, resources
