"""The demo (README command 1) runs, keeps its options, and announces a duration within budget.

The full-budget run is measured by hand (BENCHMARKS.md, "The demo"); here it runs at a tiny
budget on one core.
"""

from __future__ import annotations

import math

import pytest

from pymc_kameleon import demo


def test_default_budget_is_announced_under_a_minute():
    args = demo._parse_args([])
    assert (args.tune, args.draws, args.chains, args.cores) == (5000, 5000, 4, 2)
    assert 10 <= demo.estimate_seconds(args.tune, args.draws, args.chains, args.cores) <= 60


def test_estimate_grows_with_the_budget_and_shrinks_with_cores():
    base = demo.estimate_seconds(5000, 5000, 4, 2)
    assert demo.estimate_seconds(10_000, 10_000, 4, 2) > base
    assert demo.estimate_seconds(5000, 5000, 8, 2) > base
    assert demo.estimate_seconds(5000, 5000, 4, 4) < base
    assert demo.estimate_seconds(5000, 5000, 4, 1) > base
    # more processes than chains do not help
    assert demo.estimate_seconds(5000, 5000, 2, 8) == demo.estimate_seconds(5000, 5000, 2, 2)


@pytest.mark.parametrize(("seconds", "shown"), [(0.4, 5), (12.0, 10), (43.0, 45), (64, 60)])
def test_estimate_is_rounded(seconds, shown):
    assert demo._round_seconds(seconds) == shown


def test_demo_runs_at_a_tiny_budget(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "demo.png"
    argv = ["--tune", "150", "--draws", "60", "--chains", "2", "--cores", "1", "--out", str(out)]
    results = demo.main(argv)

    printed = capsys.readouterr().out
    first_lines = printed.splitlines()[:2]
    assert "2 chains x (150 tune + 60 draws)" in first_lines[0]
    assert first_lines[1].startswith("This takes about ") and " s on 2 cores" in first_lines[1]
    assert "ESS / 1k evals" in printed and "chi2 q error" in printed
    assert f"Plot written to {out}" in printed
    assert out.is_file() and out.stat().st_size > 10_000

    assert [r.label for r in results] == ["KameleonStep", "pm.Metropolis"]
    for result in results:
        assert result.samples.shape == (2, 60, demo.D)
        assert all(math.isfinite(v) for v in result.metrics.values())
    kameleon, metropolis = results
    assert kameleon.metrics["logp evals"] == 2 * 60  # one per iteration
    assert metropolis.metrics["logp evals"] == 2 * 60 * demo.D  # one per coordinate
