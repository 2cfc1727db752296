"""The README stays a five-minute read for users, and the version is the same everywhere.

The README holds what a PyMC user needs to decide and to start (at most ``README_MAX_LINES``
lines); the history goes to CHANGELOG.md, and no page a user reads mentions the project's
development issues.
"""

from __future__ import annotations

import re
import tomllib

from helpers.doc_blocks import ROOT

import pymc_kameleon

README_MAX_LINES = 220
#: "issue 46", "Issue 67": the project's development issues, which users do not see
ISSUE_NUMBER = re.compile(r"issue [0-9]+", re.IGNORECASE)


def user_facing_texts():
    """README, CHANGELOG, the docs' own pages and the package's sources (not shipped MathJax)."""
    paths = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    paths += [p for p in (ROOT / "docs").rglob("*") if p.suffix in {".md", ".py", ".rst"}]
    paths += list((ROOT / "pymc_kameleon").rglob("*.py"))
    return [p for p in paths if "_static" not in p.parts and "_build" not in p.parts]


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_no_development_issue_numbers_where_users_read():
    hits = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in user_facing_texts()
        for match in ISSUE_NUMBER.finditer(path.read_text(errors="replace"))
    ]
    assert hits == []


def test_the_check_sees_an_issue_number():
    assert ISSUE_NUMBER.search("fixed in Issue 67's change")
    assert not ISSUE_NUMBER.search("the issue tracker")


def test_version_is_the_changelogs_newest_everywhere():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    newest = re.search(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M).group(1)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert pymc_kameleon.__version__ == pyproject == newest
    for page in (ROOT / "README.md", ROOT / "docs" / "references.md"):
        assert f"version = {{{newest}}}" in page.read_text(), page.name
