"""Models with a discrete variable beside continuous ones, and the discrete variable's exact pmf.

Both integrate the continuous variables out in closed form (conjugate Gamma and Beta integrals),
so the discrete variable's posterior is an exact finite sum:

- :func:`change_point_model`: Poisson counts whose rate switches from ``early`` to ``late`` at
  ``s`` (issue 66's model). Besides its main mode at ``s`` 35-42 it has a minor one at 53-54
  (2.1 % of the mass beyond 45), which a chain reaches only through moves of both rates.
- :func:`binomial_trials_model`: counts ``y ~ Binomial(n, p)`` with the number of trials ``n``
  unknown, ``p ~ Beta(30, 70)``; ``n`` and ``p`` lie on a curved ridge (``n p`` is what the data
  fix), so ``n`` moves only as far as ``p`` lets it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pymc as pm
from scipy.special import betaln, gammaln

__all__ = [
    "DISCRETE_CASES",
    "DiscreteCase",
    "binomial_trials_model",
    "binomial_trials_pmf",
    "change_point_model",
    "change_point_pmf",
]


def _change_point_counts() -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.r_[rng.poisson(3.0, 35), rng.poisson(1.0, 25)]


CHANGE_POINT_COUNTS = _change_point_counts()
TRIALS_COUNTS = np.random.default_rng(11).binomial(40, 0.3, size=8)
TRIALS_MAX = 150
P_PRIOR = (30.0, 70.0)


def change_point_model() -> pm.Model:
    """``s ~ DiscreteUniform(0, 59)``, ``early, late ~ Exponential(1)``, Poisson counts."""
    counts = CHANGE_POINT_COUNTS
    with pm.Model() as model:
        s = pm.DiscreteUniform("s", 0, len(counts) - 1)
        early = pm.Exponential("early", 1.0)
        late = pm.Exponential("late", 1.0)
        rate = pm.math.switch(np.arange(len(counts)) < s, early, late)
        pm.Poisson("counts", rate, observed=counts)
    return model


def change_point_pmf() -> tuple[np.ndarray, np.ndarray]:
    """``(values, probabilities)`` of ``s``: each rate's Gamma(1, 1) prior integrated out."""
    counts = CHANGE_POINT_COUNTS
    s = np.arange(len(counts))
    before = np.r_[0, np.cumsum(counts)][s]  # sum of the counts ahead of the switch
    after = counts.sum() - before

    def log_segment(total, n):  # ∫ e^{-l} l^total e^{-n l} dl, without the 1/y! factors
        return gammaln(total + 1) - (total + 1) * np.log(n + 1)

    log_weight = log_segment(before, s) + log_segment(after, len(counts) - s)
    return s, _normalised(log_weight)


def binomial_trials_model() -> pm.Model:
    """``n ~ DiscreteUniform(max(y), 150)``, ``p ~ Beta(30, 70)``, ``y ~ Binomial(n, p)``."""
    counts = TRIALS_COUNTS
    with pm.Model() as model:
        n = pm.DiscreteUniform("n", int(counts.max()), TRIALS_MAX)
        p = pm.Beta("p", *P_PRIOR)
        pm.Binomial("y", n, p, observed=counts)
    return model


def binomial_trials_pmf() -> tuple[np.ndarray, np.ndarray]:
    """``(values, probabilities)`` of ``n``: the Beta prior of ``p`` integrated out."""
    counts = TRIALS_COUNTS
    n = np.arange(int(counts.max()), TRIALS_MAX + 1)
    a, b = P_PRIOR
    log_choose = (gammaln(n[:, None] + 1) - gammaln(n[:, None] - counts + 1)).sum(axis=1)
    total = counts.sum()
    log_weight = log_choose + betaln(total + a, len(counts) * n - total + b)
    return n, _normalised(log_weight)


def _normalised(log_weight: np.ndarray) -> np.ndarray:
    weight = np.exp(log_weight - log_weight.max())
    return weight / weight.sum()


@dataclass(frozen=True)
class DiscreteCase:
    """A model, its continuous and discrete variables' names, and the discrete one's exact pmf.

    ``checked_up_to`` limits the checked mean to the discrete values at or below it (the mean
    conditional on them): the change-point model's minor mode beyond it is entered in rare long
    excursions, too few in a test's budget for any sampler's mean over it to be compared in MCSE.
    """

    name: str
    build: object
    continuous: tuple[str, ...]
    discrete: str
    pmf: object
    checked_up_to: int | None = None

    def checked(self, draws: np.ndarray) -> np.ndarray:
        """Whether each draw is among the checked values."""
        return (
            np.ones(np.shape(draws), bool)
            if self.checked_up_to is None
            else draws <= self.checked_up_to
        )

    def exact_mean(self) -> float:
        """The exact mean of the discrete variable over its checked values."""
        values, probabilities = self.pmf()
        probabilities = np.where(self.checked(values), probabilities, 0.0)
        return float(values @ probabilities / probabilities.sum())


DISCRETE_CASES = {
    "change-point": DiscreteCase(
        "change-point",
        change_point_model,
        ("early", "late"),
        "s",
        change_point_pmf,
        checked_up_to=45,
    ),
    "binomial-trials": DiscreteCase(
        "binomial-trials", binomial_trials_model, ("p",), "n", binomial_trials_pmf
    ),
}
