"""The built HTML documentation loads nothing from the network.

A reader may open the pages with no network at all, also as files: every script, stylesheet,
image, frame or font a page loads must be a file of the build. Links to other websites
(``<a href>``) are fine: they are followed, not loaded. MathJax is shipped for this reason
(``test_docs.py::test_mathjax_is_shipped_not_fetched``); sphinx-gallery's "Computation times"
pages (``sg_execution_times``) loaded jQuery, DataTables and Bootstrap from CDNs, so
``docs/conf.py`` does not write them and keeps out the ones an earlier build left.

``test_built_site_loads_nothing_remote`` (statistical tier: it builds the docs, about 30 s)
builds the site the way CI does (``-W``) with the project's ``docs/conf.py``, in a copy of
``docs/`` (the shared ``docs/gallery`` is not touched) holding computation-times pages an earlier
build left, the gallery scripts replaced by stand-ins of the same names that only draw figures
(the pages link to the examples and show their figures), and scans every HTML and CSS file it
writes. The fast tier checks the configuration and the scanner (on the old page's assets).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"

#: a URL that leaves the build: any scheme (http:, https:, ftp:...) or protocol-relative ``//``
REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
#: the attributes through which an element makes the browser fetch something
LOADING_ATTRIBUTES = {
    "script": ("src",),
    "link": ("href", "imagesrcset"),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "input": ("src",),
    "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"),
}
#: ``<link rel=...>`` kinds that name a page rather than load one
NON_LOADING_LINKS = {"canonical", "alternate", "author", "license", "help", "index", "next", "prev"}
#: ``url(...)`` and ``@import "..."`` of CSS that point off the build
CSS_URL = re.compile(
    r"(?:url\(\s*['\"]?|@import\s+['\"])\s*((?:[a-z][a-z0-9+.-]*:)?//[^'\")\s]+)", re.IGNORECASE
)
#: a loading tag written inside a ``<style>`` (sphinx-gallery put its stylesheets there)
TAG_IN_TEXT = re.compile(
    r"<(?:link|script|img|iframe)\b[^>]*?\b(?:src|href)\s*=\s*['\"]?((?:[a-z][a-z0-9+.-]*:)?//[^'\"\s>]+)",
    re.IGNORECASE,
)


class _ResourceParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.remote: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        rel = set((values.get("rel") or "").lower().split())
        if not (tag == "link" and rel and rel <= NON_LOADING_LINKS):
            for name in LOADING_ATTRIBUTES.get(tag, ()):
                for candidate in (values.get(name) or "").split(","):  # srcset: "url 2x, url 3x"
                    if REMOTE.match(candidate):
                        self.remote.append(f"<{tag} {name}> {candidate.strip()}")
        self.remote += [
            f"<{tag} style> {url}" for url in CSS_URL.findall(values.get("style") or "")
        ]
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.remote += [f"<style> {url}" for url in CSS_URL.findall(data)]
            self.remote += [f"<style> tag {url}" for url in TAG_IN_TEXT.findall(data)]


def remote_resources_of_html(text: str) -> list[str]:
    """What an HTML page would fetch from the network (links to follow excluded)."""
    parser = _ResourceParser()
    parser.feed(text)
    parser.close()
    return parser.remote


def remote_resources_of_css(text: str) -> list[str]:
    """The ``url(...)`` and ``@import`` of a stylesheet that point off the build."""
    return [f"css {url}" for url in CSS_URL.findall(text)]


def remote_resources_of_tree(html_dir: Path) -> dict[str, list[str]]:
    """Remote resources per file (relative path) of a built HTML tree; files with none omitted."""
    found = {}
    for path in sorted(html_dir.rglob("*")):
        if path.suffix == ".html":
            remote = remote_resources_of_html(path.read_text(errors="replace"))
        elif path.suffix == ".css":
            remote = remote_resources_of_css(path.read_text(errors="replace"))
        else:
            continue
        if remote:
            found[path.relative_to(html_dir).as_posix()] = remote
    return found


#: the body of the root sg_execution_times.html that sphinx-gallery 0.22.1 wrote (trimmed)
COMPUTATION_TIMES_PAGE = """
<div class="docutils container">
<style scoped>
<link href="https://cdnjs.cloudflare.com/ajax/libs/twitter-bootstrap/5.3.0/css/bootstrap.min.css" rel="stylesheet" />
<link href="https://cdn.datatables.net/1.13.6/css/dataTables.bootstrap5.min.css" rel="stylesheet" />
</style>
<script src="https://code.jquery.com/jquery-3.7.0.js"></script>
<script src="https://cdn.datatables.net/1.13.6/js/jquery.dataTables.min.js"></script>
<script src="https://cdn.datatables.net/1.13.6/js/dataTables.bootstrap5.min.js"></script>
<script type="text/javascript" class="init">
$(document).ready( function () {
    $('table.sg-datatable').DataTable({order: [[1, 'desc']]});
} );
</script><div class="pst-scrollable-table-container"><table class="table sg-datatable">
"""  # noqa: E501


def test_scanner_finds_the_cdn_assets_of_the_computation_times_page():
    """Negative control: the page the docs used to have fails the scan, on all five assets."""
    found = remote_resources_of_html(COMPUTATION_TIMES_PAGE)
    assert len(found) == 5, found
    for host in ("cdnjs.cloudflare.com", "cdn.datatables.net", "code.jquery.com"):
        assert any(host in item for item in found), (host, found)


def test_scanner_passes_links_and_local_files_and_finds_other_remote_loads():
    local = """
    <link rel="stylesheet" href="_static/styles/theme.css?v=1" />
    <link rel="canonical" href="https://example.org/docs/page.html" />
    <script src="_static/mathjax/tex-svg-full.js"></script>
    <a href="https://github.com/pymc-devs/pymc">PyMC</a> <a href="//example.org/x">x</a>
    <img src="../_images/sphx_glr_plot_banana_002.png" srcset="a.png 1x, b.png 2x" />
    <style>.x { background: url(../_static/a.png) }</style>
    <script>var u = "https://example.org";</script>
    """
    assert remote_resources_of_html(local) == []
    remote = """
    <link rel="preload" as="font" href="https://fonts.example/f.woff2" />
    <img src="a.png" srcset="a.png 1x, //img.example/b.png 2x" />
    <iframe src="http://player.example/v"></iframe>
    <div style="background-image: url('https://img.example/bg.png')"></div>
    <style>@import "https://fonts.example/css";</style>
    """
    assert len(remote_resources_of_html(remote)) == 5, remote_resources_of_html(remote)
    assert remote_resources_of_css("a { src: url(//fonts.example/f.woff2) } b { x: url(f.woff2) }")


def conf_assignment(name: str) -> ast.expr:
    """The value node of the top-level assignment to ``name`` in docs/conf.py (read, not run)."""
    for node in ast.parse((DOCS / "conf.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return node.value
    raise AssertionError(f"docs/conf.py does not set {name}")


def test_conf_writes_no_computation_times_pages_and_keeps_out_old_ones():
    matching = pytest.importorskip("sphinx.util.matching")
    gallery = conf_assignment("sphinx_gallery_conf")
    assert isinstance(gallery, ast.Dict)
    settings = {
        ast.literal_eval(key): value
        for key, value in zip(gallery.keys, gallery.values, strict=True)
    }
    assert "write_computation_times" in settings
    assert ast.literal_eval(settings["write_computation_times"]) is False
    # pages left by an earlier build (or written by sphinx-gallery < 0.18, which has no switch)
    excluded = matching.Matcher(ast.literal_eval(conf_assignment("exclude_patterns")))
    for page in (
        "sg_execution_times.rst",
        "gallery/sg_execution_times.rst",
        "gallery/a/sg_execution_times.rst",
    ):
        assert excluded(page), page
    for page in ("index.md", "gallery/index.rst", "gallery/plot_banana.rst", "concepts/kmc.md"):
        assert not excluded(page), page


def stand_in_examples(folder: Path) -> Path:
    """examples/ with each ``plot_*.py`` replaced by one of the same name, title and figure count.

    A stand-in draws as many figures as the highest ``sphx_glr_<name>_NNN.png`` any page of
    docs/ shows (at least one), so the pages' links and images resolve, in a second instead of
    minutes.
    """
    folder.mkdir()
    shutil.copy(EXAMPLES / "GALLERY_HEADER.rst", folder)
    shown = "\n".join(page.read_text() for page in DOCS.rglob("*.md") if "_build" not in page.parts)
    for script in sorted(EXAMPLES.glob("plot_*.py")):
        docstring = ast.get_docstring(ast.parse(script.read_text()), clean=False)
        numbers = re.findall(rf"sphx_glr_{script.stem}_(\d{{3}})\.png", shown)
        figures = max([1, *map(int, numbers)])
        (folder / script.name).write_text(
            f"{docstring!r}\n\n"
            "import matplotlib.pyplot as plt\n\n"
            f"for number in range({figures}):\n"
            "    plt.figure(figsize=(2, 2))\n"
            "    plt.plot([0, 1], [number, 1])\n"
        )
    return folder


#: what sphinx-gallery < 0.18, or this project's build before the fix, left in the source tree
STALE_COMPUTATION_TIMES = """:orphan:

Computation times
=================

.. raw:: html

    <script src="https://code.jquery.com/jquery-3.7.0.js"></script>
"""


@pytest.mark.slow  # a docs build: about 30 s on a loaded 2-core machine
def test_built_site_loads_nothing_remote(tmp_path):
    pytest.importorskip("sphinx_gallery")
    source = tmp_path / "docs"
    shutil.copytree(
        DOCS,
        source,
        ignore=shutil.ignore_patterns("_build", "gallery", "sg_execution_times.rst", "__pycache__"),
    )
    (source / "gallery").mkdir()
    for stale in (source / "sg_execution_times.rst", source / "gallery" / "sg_execution_times.rst"):
        stale.write_text(STALE_COMPUTATION_TIMES)
    env = {
        **os.environ,
        "KAMELEON_GALLERY_SOURCE": str(stand_in_examples(tmp_path / "examples")),
        "MPLBACKEND": "Agg",
    }
    out = tmp_path / "html"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(source),
            str(out),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, (
        f"docs build failed:\n{build.stdout[-5000:]}\n{build.stderr[-5000:]}"
    )
    pages = sorted(out.rglob("*.html"))
    names = {page.relative_to(out).as_posix() for page in pages}
    assert {"index.html", "gallery/index.html", "gallery/plot_banana.html", "api.html"} <= names
    assert len(pages) > 40, names  # the whole site: pages, API, gallery, highlighted sources
    assert not [name for name in names if name.endswith("sg_execution_times.html")]
    assert remote_resources_of_tree(out) == {}
