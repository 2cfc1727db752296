"""The pseudo-marginal example scripts run end to end at a tiny budget and write their plots."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpc_glass_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "glass.png"
    args = ["--tune", "20", "--draws", "20", "--chains", "1", "--cores", "1"]
    idata = load_example("gpc_glass").main([*args, "--n-importance", "10", "--out", str(out)])
    assert out.stat().st_size > 10_000
    theta = np.asarray(idata["posterior"]["theta"].values)
    assert theta.shape == (1, 20, 9) and np.all(np.isfinite(theta))
    assert np.all(np.isfinite(idata["sample_stats"]["noise_sd"].values))


def test_abc_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "abc.png"
    results = load_example("abc_skew_normal").main(
        ["--tune", "20", "--draws", "20", "--chains", "1", "--cores", "1", "--out", str(out)]
    )
    assert out.stat().st_size > 10_000
    assert set(results) == {"KMCStep", "KameleonStep"}
    for idata in results.values():
        assert np.asarray(idata["posterior"]["theta"].values).shape == (1, 20, 10)
