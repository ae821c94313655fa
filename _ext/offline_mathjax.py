"""Sphinx extension: serve MathJax 3 from the built site itself instead of a CDN.

The `django-static-mathjax` package (from requirements.txt) carries MathJax's files;
they are copied into `_static/mathjax/` of the HTML output and `mathjax_path` points
there, so the book renders its mathematics with no network connection."""

from importlib.util import find_spec
from pathlib import Path
import shutil


def mathjax_folder():
    """The es5 folder of the installed MathJax distribution."""
    spec = find_spec("mathjax")
    if spec is None:
        raise RuntimeError("MathJax is not installed: pip install -r requirements.txt")
    return Path(spec.submodule_search_locations[0]) / "static" / "mathjax" / "es5"


def use_local_mathjax(app, config):
    config.mathjax_path = (
        "mathjax/tex-chtml.js"  # relative paths are served from _static/
    )


def copy_mathjax(app, exception):
    if exception is None and app.builder.format == "html":
        shutil.copytree(
            mathjax_folder(),
            Path(app.outdir) / "_static" / "mathjax",
            dirs_exist_ok=True,
        )


def setup(app):
    app.connect("config-inited", use_local_mathjax)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
