"""The independence moves' statistics: which kind of draw each move was, its share, the weight."""

from __future__ import annotations

import logging

import numpy as np
import pymc as pm
import pytest

import pymc_kameleon as pk
from pymc_kameleon.core.proposals import independence, kmc_moves
from pymc_kameleon.diagnostics import independence_moves

STEPS = [pk.AdaptiveMetropolis, pk.KameleonStep, pk.KMCStep]


def defensive_weight(name: str) -> float:
    """The weight each step gives the wide copies on a Gaussian (KMCStep its low weight: the t
    covers a Gaussian's warm-up states evenly)."""
    if name == "KMCStep":
        return kmc_moves.KMC_LOW_DEFENSIVE_WEIGHT
    return independence.DEFENSIVE_WEIGHT


@pytest.fixture(scope="module")
def results():
    logging.getLogger("pymc").setLevel(logging.ERROR)
    out = {}
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=3)
        for step in STEPS:
            out[step.__name__] = pm.sample(
                step=step(), tune=500, draws=600, chains=2, cores=1, random_seed=3,
                progressbar=False, compute_convergence_checks=False,
                discard_tuned_samples=False,
            )  # fmt: skip
    return out


@pytest.mark.parametrize("name", [s.__name__ for s in STEPS])
def test_kept_moves_draw_wide_copies_at_the_defensive_weight(results, name):
    stats = results[name]["sample_stats"]
    kind = stats["independence_move"].values
    share = stats["independence_share"].values
    assert set(np.unique(kind)) <= {-1, 0, 1}
    assert np.all(stats["defensive_weight"].values == defensive_weight(name))
    # the share is frozen per chain after warm-up, and the independence moves take about it
    assert np.all(share == share[:, :1])
    made = kind >= 0
    n = made.size
    expected = share.mean()
    assert abs(made.mean() - expected) < 4.0 * np.sqrt(expected * (1 - expected) / n)
    # among them, the defensive weight's share from the wide copies (4 binomial sds)
    w, m = defensive_weight(name), made.sum()
    assert abs((kind == 1).sum() / m - w) < 4.0 * np.sqrt(w * (1 - w) / m)
    # the wide draws are accepted less often than the t's on this Gaussian
    summary = independence_moves(results[name])
    assert summary["wide"]["acceptance"] < summary["t"]["acceptance"]
    assert summary["all"]["defensive_weight"] == defensive_weight(name)
    assert summary["t"]["share"] + summary["wide"]["share"] == pytest.approx(made.mean())


@pytest.mark.parametrize("name", [s.__name__ for s in STEPS])
def test_warmup_has_single_ts_and_no_wide_draws(results, name):
    warm = results[name]["warmup_sample_stats"]
    assert np.all(warm["defensive_weight"].values == 0.0)
    assert not np.any(warm["independence_move"].values == 1)
    summary = independence_moves(results[name], group="warmup_sample_stats")
    assert summary["wide"]["share"] == 0.0 and np.isnan(summary["wide"]["acceptance"])


def test_a_result_without_the_statistic_is_named_in_the_error():
    with pm.Model():
        pm.Normal("x", 0.0, 1.0)
        idata = pm.sample(
            step=pm.Metropolis(), tune=20, draws=20, chains=1, progressbar=False,
            compute_convergence_checks=False, random_seed=1,
        )  # fmt: skip
    with pytest.raises(KeyError, match="independence_move"):
        independence_moves(idata)


def test_kmc_raises_its_wide_copies_where_the_t_falls_short_and_the_random_walks_do_not():
    """On a curved banana the t of the warm-up's moments misses the arms: KMCStep measures that
    at the end of warm-up and raises the wide copies' weight above its base (in 14 of 16 chains
    at seeds 1-8, at least one of two at each; without the log-densities reaching its mixing,
    none), while AdaptiveMetropolis keeps its fixed weight."""
    logging.getLogger("pymc").setLevel(logging.ERROR)
    weights = {}
    with pm.Model():
        x = pm.Flat("x", shape=2)
        bent = x[1] - 0.1 * (x[0] ** 2 - 100.0)
        pm.Potential("banana", -0.5 * (x[0] ** 2 / 100.0 + bent**2))
        for step in (pk.KMCStep, pk.AdaptiveMetropolis):
            idata = pm.sample(
                step=step(), tune=1000, draws=20, chains=2, cores=1, random_seed=5,
                progressbar=False, compute_convergence_checks=False,
            )  # fmt: skip
            weights[step.__name__] = idata["sample_stats"]["defensive_weight"].values[:, 0]
    assert np.any(weights["KMCStep"] > kmc_moves.KMC_DEFENSIVE_WEIGHT)
    assert np.all(weights["KMCStep"] >= kmc_moves.KMC_LOW_DEFENSIVE_WEIGHT)
    assert np.all(weights["AdaptiveMetropolis"] == independence.DEFENSIVE_WEIGHT)
