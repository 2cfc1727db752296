"""Every gallery script (``examples/plot_*.py``) runs end to end at a tiny budget.

The scripts read their budget from ``KAMELEON_EXAMPLE_SCALE``; the documentation build runs
them again at a larger one.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))


@pytest.fixture
def run_example(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setenv("KAMELEON_EXAMPLE_SCALE", "0.01")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(plt, "show", lambda *a, **k: None)

    def run(script: Path) -> dict:
        namespace = runpy.run_path(str(script), run_name="__main__")
        namespace["figures"] = [plt.figure(n) for n in plt.get_fignums()]
        return namespace

    yield run
    plt.close("all")


def test_the_gallery_has_the_promised_examples():
    names = {s.stem for s in SCRIPTS}
    assert {
        "plot_banana",
        "plot_flower",
        "plot_gpc_glass",
        "plot_abc_skew_normal",
        "plot_ess_per_evaluation",
        "plot_pca_kameleon",
    } <= names


def check_banana(ns: dict) -> None:
    draws = np.asarray(ns["idata_kameleon"]["posterior"]["x"].values)
    assert draws.shape[:2] == (4, ns["DRAWS"]) and np.all(np.isfinite(draws))
    assert ns["kameleon"].z is not None  # the step kept its proposal for the figure


def check_gpc(ns: dict) -> None:
    theta = np.asarray(ns["idata"]["posterior"]["theta"].values)
    assert theta.shape == (1, ns["DRAWS"], 9) and np.all(np.isfinite(theta))  # one chain
    assert np.all(np.isfinite(ns["idata"]["sample_stats"]["noise_sd"].values))


def check_abc(ns: dict) -> None:
    assert set(ns["results"]) == {"KMCStep", "KameleonStep"}
    for idata in ns["results"].values():
        assert np.asarray(idata["posterior"]["theta"].values).shape == (2, ns["DRAWS"], 10)


def check_ess_counts(ns: dict) -> None:
    by_sampler = {r["sampler"]: r for r in ns["live"]}
    assert all(r["status"] == "ok" for r in ns["live"])
    iterations = 2 * ns["DRAWS"]  # evaluations of the kept draws
    assert by_sampler["KAMH-LS"]["draw_evals"] == iterations  # one evaluation per iteration
    assert by_sampler["pm.Metropolis"]["draw_evals"] == 8 * iterations  # one per coordinate


def check_start_up(ns: dict) -> None:
    started, ordinary = ns["paths"][True], ns["paths"][False]
    assert np.all(np.abs(started) < 6.0)  # from its first state in the posterior (sd units)
    assert abs(ordinary[0]) > 3.0  # 0 is 3.8 sds out along the ridge


def check_pca(ns: dict) -> None:
    pca = ns["steps"]["pca"].kernel_proposal
    assert pca.vectors is not None and pca.weights.sum() == pytest.approx(1.0)
    directions = ns["runs"]["pca"]["sample_stats"]["direction"].values
    assert directions.max() < ns["steps"]["pca"].n_components and directions.min() >= -1


#: What a script's results must show beyond its figures; each script runs once (its sampling
#: and compiles are the cost) and is checked here.
RESULT_CHECKS = {
    "plot_banana": check_banana,
    "plot_gpc_glass": check_gpc,
    "plot_abc_skew_normal": check_abc,
    "plot_ess_per_evaluation": check_ess_counts,
    "plot_start_up": check_start_up,
    "plot_pca_kameleon": check_pca,
}


def test_every_result_check_names_a_script():
    assert set(RESULT_CHECKS) <= {s.stem for s in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_example_runs_draws_and_gives_its_results(script, run_example):
    namespace = run_example(script)
    assert namespace["figures"], f"{script.name} drew no figure"
    for fig in namespace["figures"]:
        assert fig.axes and all(ax.has_data() for ax in fig.axes if ax.get_visible())
    if script.stem in RESULT_CHECKS:
        RESULT_CHECKS[script.stem](namespace)
