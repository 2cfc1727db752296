"""Sphinx configuration of the pymc-kameleon documentation.

Build (offline, warnings are errors)::

    pip install ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The gallery runs every ``examples/plot_*.py`` script at a reduced budget
(``KAMELEON_EXAMPLE_SCALE``, default 0.25 here; 1.0 is the full budget of a script run by hand).
No extension fetches anything from the network: there is no intersphinx, and MathJax is not
loaded from a CDN but shipped in ``docs/_static/mathjax`` (see ``SOURCE.txt`` there), so the
built pages render formulas offline, also when opened as files. No page loads a script,
stylesheet or image from the network either: sphinx-gallery's "Computation times" pages, which
would (jQuery, DataTables and Bootstrap from CDNs), are not written (a build without ``-q``
still logs the examples' run times); ``tests/docs/test_offline_html.py`` builds and checks.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("KAMELEON_EXAMPLE_SCALE", "0.25")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pymc_kameleon  # noqa: E402

project = "pymc-kameleon"
author = "the pymc-kameleon developers"
copyright = "2026, the pymc-kameleon developers"
release = pymc_kameleon.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = [
    "_build",
    "gallery/*.ipynb",
    "gallery/*.py",
    "gallery/*.zip",
    # sphinx-gallery's computation-times pages load jQuery, DataTables and Bootstrap from CDNs;
    # they are not written (below), and these keep out copies left by an earlier build
    "sg_execution_times.rst",
    "**/sg_execution_times.rst",
]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- API reference: numpydoc, and every parameter must be documented -------------------------
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = {
    "GL08",  # the object has no docstring
    "PR01",  # a parameter is not documented
    "PR02",  # a documented parameter does not exist
    "RT01",  # no Returns section
}
numpydoc_validation_exclude = {
    r"\._[a-z]",  # private members
    r"\.__",  # dunder members
    r"\.stats_dtypes_shapes$",
    r"\.name$",
    r"\.default_blocked$",
    # overrides that inherit the base class's full docstring (autodoc shows it)
    r"Kernel\.(value|grad)$",
    r"\.(TuningOnly|VanishingAdaptation)\.probability$",
    r"\.(LiteSurrogate|FiniteScoreMatching)\.trajectory$",
    # PyTensor Op methods (their contract is PyTensor's)
    r"\.(make_node|perform|make_thunk|infer_shape|L_op|pullback)$",
    # result records (named tuples and dataclasses returned by functions, never built by hand)
    r"\.LeapfrogResult$",
    r"\.MHDecision$",
    r"\.LaplaceApproximation$",
    r"\.TrajectoryRun$",
}

# --- gallery ------------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": os.environ.get("KAMELEON_GALLERY_SOURCE", str(ROOT / "examples")),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 5,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
    # no sg_execution_times.rst pages: their table script and styles come from CDNs (jQuery,
    # DataTables, Bootstrap), and the docs work offline; the build log has the run times
    # (an option since sphinx-gallery 0.18, the minimum in pyproject.toml)
    "write_computation_times": False,
}

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "pymc-kameleon"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
}
html_static_path = ["_static"]
# MathJax 3.2.2's single-file TeX-to-SVG build, shipped in docs/_static/mathjax (Apache-2.0): it
# loads no fonts or extensions, so formulas render without network, also from file:// pages.
mathjax_path = "mathjax/tex-svg-full.js"
