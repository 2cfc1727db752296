"""The documentation is executable: its code runs, and every sampler statistic is explained.

Every fenced ```` ```python ```` block of README.md and docs/**/*.md is run, page by page in one
namespace (a page may build on its earlier blocks), with ``pm.sample`` capped to a tiny budget.
Fragments that are not meant to run stand in ```` ```py ```` or ``{code-block}`` fences. What a
page says PyMC prints or logs (```PyMC prints `...` ```) must appear in the logs of its blocks.
The README's statements about its blocks' output at their own budgets are checked in the slow
tier, by ``test_doc_claims.py``.
"""

from __future__ import annotations

import ast
import logging
import re
from typing import ClassVar

import numpy as np
import pymc as pm
import pytest
from helpers.doc_blocks import PAGES, ROOT, python_blocks

from pymc_kameleon import AdaptiveMetropolis, KameleonSMC, KameleonStep, KMCStep

#: "PyMC prints `CompoundStep >KameleonStep: [k] ...`": what a page says PyMC logs
PYMC_PRINTS = re.compile(r"PyMC (?:prints|logs) `([^`]+)`")


@pytest.fixture
def tiny_sample(monkeypatch):
    """``pm.sample`` with at most 2 chains x (150 + 40) iterations, ``pm.sample_smc`` with one
    chain of 60 particles (KameleonSMC: at most 3 sweeps a stage), on one core, quietly."""
    real_sample = pm.sample

    def capped(*args, **kwargs):
        kwargs["tune"] = min(int(kwargs.get("tune", 1000)), 150)
        kwargs["draws"] = min(int(kwargs.get("draws", args[0] if args else 1000)), 40)
        kwargs["chains"] = min(int(kwargs.get("chains", 2)), 2)
        kwargs.update(cores=1, progressbar=False, compute_convergence_checks=False)
        return real_sample(**kwargs)

    monkeypatch.setattr(pm, "sample", capped)
    real_sample_smc = pm.sample_smc

    def capped_smc(*args, **kwargs):
        kwargs["draws"] = min(int(kwargs.get("draws", 2000)), 60)
        kwargs["chains"] = 1
        if kwargs.get("kernel") is KameleonSMC:
            kwargs["max_steps"] = min(int(kwargs.get("max_steps") or 3), 3)
        kwargs.update(cores=1, progressbar=False, compute_convergence_checks=False)
        return real_sample_smc(*args, **kwargs)

    monkeypatch.setattr(pm, "sample_smc", capped_smc)


def test_pages_have_code():
    pages_with_code = {p.name for p in PAGES if python_blocks(p)}
    assert {"README.md", "getting-started.md", "black-box.md", "noisy-likelihood.md"} <= (
        pages_with_code
    )


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)], ids=lambda p: p.name)
def test_page_code_runs(page, tiny_sample, tmp_path, monkeypatch, caplog):
    """Every block runs; each message the page says PyMC prints is in the blocks' log."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)  # anything a page writes lands here
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    caplog.set_level(logging.INFO, logger="pymc")
    try:
        for block in python_blocks(page):
            exec(compile(block, str(page), "exec"), namespace)
    finally:
        plt.close("all")
    logged = " ".join(record.getMessage() for record in caplog.records)
    for message in PYMC_PRINTS.findall(" ".join(page.read_text().split())):
        assert message in logged, f"{page.name} says PyMC prints {message!r}; it logged {logged!r}"


def test_pymc_prints_claims_are_found():
    """The pattern above sees the pages' claims (a reworded claim would go unchecked)."""
    claims = {
        page.name: PYMC_PRINTS.findall(" ".join(page.read_text().split()))
        for page in PAGES
        if python_blocks(page)
    }
    assert claims["compound.md"] == [
        "CompoundStep >KameleonStep: [k] >NUTS: [mu, sigma]",
        "CompoundStep >KMCStep: [early, late] >Metropolis: [s]",
    ]
    assert claims["noisy-likelihood.md"] == ["KameleonStep: [mu]"]


STEP_CLASSES = (KameleonStep, KMCStep, AdaptiveMetropolis)
NOISY_ONLY = {"noise_sd"}


#: constructor arguments that change which stats a step declares (its proposal adds its own)
STAT_VARIANTS = {
    KameleonStep: ({"warmup": "classic"}, {"warmup": "whitened"}, {"proposal": "pca"}),
    AdaptiveMetropolis: ({"warmup": "classic"}, {"warmup": "whitened"}),
    KMCStep: ({"warmup": "classic"}, {"warmup": "whitened"}),
}


def declared_stats(cls) -> set[str]:
    """Stats the class declares, and those its instances add, over its stat variants."""
    names = set(cls.stats_dtypes_shapes) | NOISY_ONLY | {"tune"}
    with pm.Model():
        pm.Normal("x", shape=2)
        for kwargs in STAT_VARIANTS.get(cls, ({},)):
            names |= set(cls(**kwargs).stats_dtypes_shapes)
    return names


@pytest.mark.parametrize("cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_every_stat_is_in_the_docstring(cls):
    stats = declared_stats(cls) - {"tune"}
    missing = {name for name in stats if f"``{name}``" not in cls.__doc__}
    assert not missing, f"{cls.__name__} docstring does not explain {sorted(missing)}"


def stats_page_tables() -> dict[str, set[str]]:
    """Stat names in the tables of docs/stats.md, per section."""
    tables: dict[str, set[str]] = {}
    section = None
    for line in (ROOT / "docs" / "stats.md").read_text().splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        match = re.match(r"^\| `(\w+)` \|", line)
        if match and section:
            tables.setdefault(section, set()).add(match.group(1))
    return tables


@pytest.mark.parametrize("cls", STEP_CLASSES, ids=lambda c: c.__name__)
def test_every_stat_is_on_the_stats_page(cls):
    tables = stats_page_tables()
    documented = tables["Statistics of every step"] | tables[cls.__name__]
    missing = declared_stats(cls) - documented
    assert not missing, f"docs/stats.md does not explain {sorted(missing)} of {cls.__name__}"


def test_stats_page_documents_no_stat_that_does_not_exist():
    tables = stats_page_tables()
    every = set().union(*(declared_stats(cls) for cls in STEP_CLASSES))
    smc = tables.pop("KameleonSMC")
    listed = set().union(*tables.values())
    assert listed <= every, sorted(listed - every)
    assert smc == set(KameleonSMC.stats_dtypes_shapes), sorted(
        smc ^ set(KameleonSMC.stats_dtypes_shapes)
    )


def test_every_kameleon_smc_stat_is_in_its_docstring():
    missing = {
        name for name in KameleonSMC.stats_dtypes_shapes if f"``{name}``" not in KameleonSMC.__doc__
    }
    assert not missing, sorted(missing)


def test_stats_page_catches_a_missing_stat(monkeypatch):
    """Negative control: a step with an undocumented stat fails the check."""

    class Undocumented(KameleonStep):
        stats_dtypes_shapes: ClassVar = {
            **KameleonStep.stats_dtypes_shapes,
            "mystery": (np.float64, []),
        }

    tables = stats_page_tables()
    documented = tables["Statistics of every step"] | tables["KameleonStep"]
    assert declared_stats(Undocumented) - documented == {"mystery"}


def conf_settings(*names: str) -> dict:
    """Literal top-level assignments of docs/conf.py, read without running it."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    found = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name) and target.id in names and value is not None:
                found[target.id] = ast.literal_eval(value)
    return found


def test_mathjax_is_shipped_not_fetched():
    """The docs render formulas offline: mathjax_path is a file in html_static_path, no URL."""
    conf = conf_settings("extensions", "mathjax_path", "html_static_path")
    assert "sphinx.ext.mathjax" in conf["extensions"]
    path = conf["mathjax_path"]
    assert "://" not in path and not path.startswith("//"), f"mathjax_path is a URL: {path}"
    candidates = [ROOT / "docs" / static / path for static in conf["html_static_path"]]
    existing = [c for c in candidates if c.is_file()]
    assert existing, f"{path} is in none of the static folders {conf['html_static_path']}"
    script = existing[0]
    assert script.stat().st_size > 1_000_000  # the whole single-file build, not a stub
    assert "MathJax" in script.read_text(errors="replace")[:200_000]
    assert (script.parent / "LICENSE").is_file()
