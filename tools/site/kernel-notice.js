// The site's notice while a notebook's Python starts. tools/site/build.py puts
// this script into the site's lab/index.html.
//
// Python (Pyodide) starts in the page each time a notebook opens, and the first
// start can take a minute on a slow or busy computer. Meanwhile JupyterLab's
// status bar only reads "Python (Pyodide) | Unknown". So, while the notebook in
// front has a kernel that is not ready yet, a box at the bottom of the page says
// that Python is starting; it goes when the kernel is idle (or busy, or dead).
// It reads JupyterLab's own state (window.jupyterapp, which the site exposes) a
// few times a second and changes nothing in JupyterLab.
(function () {
  "use strict";

  var WAITING = ["unknown", "initializing", "starting", "restarting", "autorestarting",
                 "connecting"];
  var TEXT = "Python is starting in this page. The first start can take a minute; " +
             "this note goes away when Python is ready to run the cells.";
  var notice = null;

  function waiting() {
    var app = window.jupyterapp;
    var widget = app && app.shell && app.shell.currentWidget;
    var session = widget && widget.sessionContext;
    return !!(session && !session.hasNoKernel
              && WAITING.indexOf(session.kernelDisplayStatus) >= 0);
  }

  function make() {
    var box = document.createElement("div");
    box.id = "course-kernel-notice";
    box.setAttribute("role", "status");
    box.textContent = TEXT;
    var style = box.style;
    style.position = "fixed";
    style.zIndex = "10000";
    style.bottom = "40px";
    style.left = "50%";
    style.transform = "translateX(-50%)";
    style.maxWidth = "40em";
    style.padding = "10px 16px";
    style.borderRadius = "4px";
    style.border = "1px solid var(--jp-brand-color1, #1976d2)";
    style.background = "var(--jp-layout-color1, #fff)";
    style.color = "var(--jp-ui-font-color0, #000)";
    style.boxShadow = "0 2px 8px rgba(0, 0, 0, 0.25)";
    style.font = "14px/1.4 var(--jp-ui-font-family, sans-serif)";
    style.pointerEvents = "none";
    document.body.appendChild(box);
    return box;
  }

  function check() {
    var show = waiting();
    if (show && notice === null) {
      notice = make();
    }
    if (notice !== null) {
      notice.hidden = !show;
    }
  }

  setInterval(check, 250);
})();
