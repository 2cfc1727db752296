"""The demo (README command 1) runs, keeps its options, and announces a duration within budget.

The full-budget run is measured by hand (benchmarks/notes/lab-notes.md, "The demo"); here it runs at
a tiny budget on one core.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon import demo


def test_default_budget_is_announced_under_a_minute():
    args = demo._parse_args([])
    assert (args.tune, args.draws, args.chains, args.cores) == (4000, 30000, 4, 2)
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
    assert "ESS / 1k evals" in printed and "ESS / s" in printed and "chi2 q error" in printed
    assert "trusted" in printed and "KameleonStep is better on:" in printed
    assert "pm.Metropolis is better on:" in printed
    assert f"Plot written to {out}" in printed
    assert out.is_file() and out.stat().st_size > 10_000

    assert [r.label for r in results] == ["KameleonStep", "pm.Metropolis"]
    for result in results:
        assert result.samples.shape == (2, 60, demo.D)
        assert all(math.isfinite(v) for v in result.metrics.values())
    kameleon, metropolis = results
    assert kameleon.metrics["logp evals"] == 2 * 60  # one per iteration
    assert metropolis.metrics["logp evals"] == 2 * 60 * demo.D  # one per coordinate


def make_result(label: str, **metrics: float) -> demo.DemoResult:
    base = {
        "logp evals": 1000.0, "min bulk ESS": 500.0, "ESS / 1k evals": 1.0, "ESS / s": 10.0,
        "chi2 q error": 0.01, "acceptance": 0.3, "max R-hat": 1.001, "wall s": 10.0,
    }  # fmt: skip
    return demo.DemoResult(label, None, {**base, **metrics})


def test_verdict_names_untrusted_runs_and_each_samplers_wins():
    ours = make_result("KameleonStep", **{"ESS / 1k evals": 8.0, "ESS / s": 5.0})
    theirs = make_result("pm.Metropolis", **{"max R-hat": 1.02, "wall s": 5.0})
    lines = demo.verdict([ours, theirs])
    assert (
        lines[0] == "KameleonStep: 8.0x the ESS per 1000 log-density evaluations of pm.Metropolis."
    )
    assert lines[1] == "KameleonStep: 0.5x the ESS per second of pm.Metropolis."
    assert "Not to be trusted" in lines[2] and "pm.Metropolis" in lines[2]
    assert "KameleonStep" not in lines[2]
    assert lines[3] == "KameleonStep is better on: ESS / 1k evals, max R-hat."
    assert lines[4] == "pm.Metropolis is better on: ESS / s, wall s."
    table = demo.format_table([ours, theirs])
    assert table.splitlines()[2].rstrip().endswith("yes")
    assert table.splitlines()[3].rstrip().endswith("no")


def test_verdict_treats_values_equal_as_printed_as_a_tie():
    ours = make_result("KameleonStep", **{"chi2 q error": 0.0061})
    theirs = make_result("pm.Metropolis", **{"chi2 q error": 0.0058})
    assert all("chi2 q error" not in line for line in demo.verdict([ours, theirs]))


def test_the_plot_title_names_the_banana_s_dimension(tmp_path):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(0)
    metrics = {"min bulk ESS": 10.0, "ESS / 1k evals": 1.0}
    results = [
        demo.DemoResult(label, rng.normal(size=(2, 50, 2)), metrics)
        for label in ("KameleonStep", "pm.Metropolis")
    ]
    figure = demo.plot_samples(results, str(tmp_path / "demo.png"))
    assert figure.get_suptitle().startswith("2-D banana B(")
    assert (tmp_path / "demo.png").exists()
