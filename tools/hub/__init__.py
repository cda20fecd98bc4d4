"""A class of the course on a real JupyterHub, on one machine (`make hub`)."""
