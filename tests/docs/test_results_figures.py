"""The results page's figures come from the benchmark records (``docs/results_figures.py``).

``docs/_static/results/figures.json`` holds every number the committed PNGs show; each figure's
``<name>_data()`` reads the records again and must give the same numbers, so a figure cannot
drift from its records or be edited by hand. Re-draw with ``python docs/results_figures.py``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import statistics
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "results_figures.py"
FIGURES_JSON = ROOT / "docs" / "_static" / "results" / "figures.json"
PAGE = ROOT / "docs" / "results.md"


def _load_script():
    spec = importlib.util.spec_from_file_location("results_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


figures = _load_script()
NAMES = list(figures.FIGURES)


@pytest.fixture(scope="module")
def committed() -> dict:
    return json.loads(FIGURES_JSON.read_text())


def _as_json(value):
    """``value`` as figures.json stores it (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def test_every_figure_is_in_figures_json(committed):
    assert sorted(committed) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_plotted_numbers_are_what_the_records_give(name, committed):
    data_of, _ = figures.FIGURES[name]
    assert _as_json(data_of()) == committed[name]["data"], (
        f"{name}: the records give other numbers than figures.json; "
        "re-run python docs/results_figures.py"
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_record_listed_exists(name, committed):
    records = committed[name]["data"]["records"]
    assert records
    for path in records:
        assert (ROOT / path).is_file(), path


@pytest.mark.parametrize("name", NAMES)
def test_each_png_exists_and_is_on_the_page(name, committed):
    png = committed[name]["png"]
    assert (ROOT / png).is_file(), png
    assert (ROOT / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = PAGE.read_text()
    assert f"](_static/results/{name}.png)" in page, f"docs/results.md does not show {png}"


def test_the_page_names_each_record():
    page = PAGE.read_text()
    for name in NAMES:
        for path in figures.FIGURES[name][0]()["records"]:
            assert path in page, f"docs/results.md does not name {path}"


def test_the_data_functions_need_no_matplotlib(monkeypatch):
    source = SCRIPT.read_text()
    top_level_imports = re.findall(r"^(?:import|from) (\w+)", source, re.MULTILINE)
    assert "matplotlib" not in top_level_imports
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # any import of it now fails
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    for data_of, _ in figures.FIGURES.values():
        assert data_of()["records"]


# --- numbers recomputed straight from the records, independently of the script ---------------


def _jsonl(path: str) -> list[dict]:
    lines = (ROOT / path).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_a_real_model_value_is_the_records(committed):
    rows = _jsonl("benchmarks/results/independence-share/suite/seed1/results.jsonl")
    (row,) = [r for r in rows if r["model"] == "stackloss" and r["sampler"] == "KameleonStep()"]
    data = committed["real_models"]["data"]
    assert data["ess_per_1k_evals"]["KameleonStep()"]["stackloss"] == row["ess_per_1k_evals"]
    assert data["passed"]["KameleonStep()"]["stackloss"] is row["passed"]
    nuts = _jsonl("benchmarks/results/real-warmup/results.jsonl")
    (row,) = [r for r in nuts if r["model"] == "macro-flat" and r["sampler"] == "NUTS(0.95)"]
    assert data["ess_per_1k_evals"]["NUTS(0.95)"]["macro-flat"] == row["ess_per_1k_evals"]


def test_a_curved_median_is_the_records(committed):
    rows = _jsonl("benchmarks/results/curved-budget/kmc-default.jsonl")
    values = [r["ess_per_1k_evals"] for r in rows if r["problem"] == "banana-0.03"]
    run = committed["curved"]["data"]["runs"]["KMCStep()"]["banana-0.03"]
    assert len(values) == 3
    assert run["median"] == statistics.median(values)
    assert sorted(run["ess_per_1k_evals"]) == sorted(values)


def test_a_dimension_point_is_the_records(committed):
    rows = _jsonl("benchmarks/results/dimension/dimension.jsonl")
    rows += _jsonl("benchmarks/results/dimension/smoke.jsonl")
    values = [
        r["ess_per_1k_evals"]
        for r in rows
        if r["problem"] == "gamma-gauss-20" and r["sampler"] == "AM-LS" and r["status"] == "ok"
    ]
    points = committed["dimension"]["data"]["points"]["gamma-gauss"]["AM-LS"]
    (point,) = [p for p in points if p[0] == 20]
    assert point[1] == statistics.median(values)
    assert point[3] == len(values) == 3


def test_a_pool_wall_time_is_the_log(committed):
    log = (ROOT / "benchmarks/results/smc-pool/pinned-chunks-13c158e-seed1.log").read_text()
    (wall,) = re.findall(r"^\| ode \| dask LocalCluster \| 2 \| ([0-9.]+) \|", log, re.MULTILINE)
    rows = committed["smc_pool"]["data"]["models"]["ode"]
    (row,) = [r for r in rows if r["pool"] == "dask LocalCluster"]
    assert row["wall_s"] == float(wall)


def test_a_hand_edited_number_is_caught(committed):
    edited = json.loads(json.dumps(committed["curved"]["data"]))
    edited["runs"]["KMCStep()"]["banana-0.03"]["median"] *= 1.01
    assert _as_json(figures.curved_data()) != edited


# --- drawing (needs matplotlib) ---------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_each_figure_draws(name, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    data_of, draw = figures.FIGURES[name]
    out = tmp_path / f"{name}.png"
    draw(data_of(), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
