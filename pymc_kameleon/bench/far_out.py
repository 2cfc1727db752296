"""Black-box models that are slow far out, and an Op that records where it was evaluated.

A user's expensive model pays for every point a step asks about, and for an ODE a point tens of
posterior widths out can be a stiff system that takes minutes to solve: a hang, not a rejection.
These models make that measurable:

* :func:`logistic_ode_model`: logistic growth ``dN/dt = r N (1 - N / K)``, ``N(0) = 5``, observed
  with Gaussian noise at ``t = 1..15``, solved by :func:`scipy.integrate.solve_ivp` (RK45,
  ``rtol=1e-7``) inside an Op without a gradient; priors ``r ~ LogNormal(log 0.5, 0.5)``,
  ``K ~ LogNormal(log 60, 0.5)``, ``sigma ~ HalfNormal(10)``. A solve takes milliseconds near the
  posterior and seconds to minutes for ``r`` in the thousands (the system turns stiff).
* :func:`theta_logistic_model`: the same with a shape exponent ``theta ~ LogNormal(0, 0.3)``,
  ``dN/dt = r N (1 - (N / K) ** theta)``.
* :func:`van_der_pol_model`: the Van der Pol oscillator ``x'' = mu (1 - x**2) x' - x`` from
  ``(x0, 0)``, ``x`` observed with Gaussian noise at ``t = 0.5, 1, ..., 10``; priors
  ``mu ~ LogNormal(0, 0.5)``, ``x0 ~ Normal(2, 0.5)``, ``sigma ~ HalfNormal(1)``; RK45 as above.
  The system turns stiff as ``mu`` grows: a solve takes milliseconds at ``mu = 1.5`` (the data's)
  and seconds from ``mu`` in the hundreds.

Each model's Op keeps a :class:`EvaluationLog` of every parameter vector it was asked about (in
the model's own units; the log stays in the process that evaluated it, so read it after
``pm.sample(cores=1)``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.graph.op import Op
from scipy.integrate import solve_ivp

__all__ = [
    "LOGISTIC_TIMES",
    "VAN_DER_POL_TIMES",
    "EvaluationLog",
    "LogisticGrowthOp",
    "VanDerPolOp",
    "logistic_growth_data",
    "logistic_ode_model",
    "logistic_solution",
    "theta_logistic_model",
    "van_der_pol_data",
    "van_der_pol_model",
    "van_der_pol_solution",
]

#: observation times of the logistic-growth models
LOGISTIC_TIMES = np.arange(1.0, 16.0)
_N0 = 5.0


class EvaluationLog:
    """The parameter vectors an Op was asked about, in order (one row per evaluation)."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []

    def add(self, row) -> None:
        """Record one evaluation."""
        self.rows.append(np.array(row, dtype=float))

    def clear(self) -> None:
        """Forget every record."""
        self.rows.clear()

    @property
    def points(self) -> np.ndarray:
        """The evaluations so far, shape (n, d)."""
        return np.array(self.rows) if self.rows else np.empty((0, 0))

    def __len__(self) -> int:
        return len(self.rows)

    def __reduce__(self):  # a pickled Op (pm.sample(cores > 1)) starts an empty log of its own
        return (EvaluationLog, ())


def _logistic_rhs(t, n, r, k, theta):
    return r * n * (1.0 - np.sign(n) * (np.abs(n) / k) ** theta)


def logistic_solution(r: float, k: float, theta: float = 1.0, times=LOGISTIC_TIMES) -> np.ndarray:
    """``N(t)`` of theta-logistic growth from ``N(0) = 5`` (RK45, ``rtol=1e-7``).

    Parameters
    ----------
    r, k, theta : float
        Growth rate, carrying capacity, shape exponent (1: logistic).
    times : numpy.ndarray

    Returns
    -------
    numpy.ndarray
        NaN where the solver fails (the likelihood is then ``-inf``).
    """
    solution = solve_ivp(
        _logistic_rhs, (0.0, float(times[-1])), [_N0], method="RK45", t_eval=times,
        args=(r, k, theta), rtol=1e-7,
    )  # fmt: skip
    if not solution.success or solution.y.shape[1] != len(times):
        return np.full(len(times), np.nan)
    return solution.y[0]


def logistic_growth_data(seed: int = 3, theta: float = 1.0) -> np.ndarray:
    """Observations simulated with ``r = 0.5, K = 60, sigma = 3`` from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    return logistic_solution(0.5, 60.0, theta) + rng.normal(0.0, 3.0, LOGISTIC_TIMES.size)


class LogisticGrowthOp(Op):
    """``(r, K, theta) -> N(t)`` by :func:`logistic_solution`, no gradient; records each call.

    Parameters
    ----------
    max_rate : float, optional
        Above this ``r`` the Op records the point and returns NaN without solving (a test that
        must fail, not hang, where a step evaluates far out).
    """

    itypes: ClassVar[list] = [pt.dvector]
    otypes: ClassVar[list] = [pt.dvector]

    def __init__(self, max_rate: float = np.inf) -> None:
        self.max_rate = float(max_rate)
        self.log = EvaluationLog()

    def perform(self, node, inputs, outputs):
        r, k, theta = inputs[0]
        self.log.add(inputs[0])
        too_far = not r <= self.max_rate
        outputs[0][0] = (
            np.full(LOGISTIC_TIMES.size, np.nan) if too_far else logistic_solution(r, k, theta)
        )


def logistic_ode_model(
    seed: int = 3, max_rate: float = np.inf
) -> tuple[pm.Model, LogisticGrowthOp]:
    """The logistic-growth ODE model and its recording Op (see the module docstring)."""
    observed = logistic_growth_data(seed)
    op = LogisticGrowthOp(max_rate)
    with pm.Model() as model:
        r = pm.LogNormal("r", np.log(0.5), 0.5)
        k = pm.LogNormal("K", np.log(60.0), 0.5)
        sigma = pm.HalfNormal("sigma", 10.0)
        mean = op(pt.stack([r, k, pt.constant(1.0, dtype="float64")]))
        pm.Normal("y", mean, sigma, observed=observed)
    return model, op


def theta_logistic_model(seed: int = 3) -> tuple[pm.Model, LogisticGrowthOp]:
    """The theta-logistic ODE model (data simulated with ``theta = 1``) and its recording Op."""
    observed = logistic_growth_data(seed)
    op = LogisticGrowthOp()
    with pm.Model() as model:
        r = pm.LogNormal("r", np.log(0.5), 0.5)
        k = pm.LogNormal("K", np.log(60.0), 0.5)
        theta = pm.LogNormal("theta", 0.0, 0.3)
        sigma = pm.HalfNormal("sigma", 10.0)
        mean = op(pt.stack([r, k, theta]))
        pm.Normal("y", mean, sigma, observed=observed)
    return model, op


#: observation times of the Van der Pol model
VAN_DER_POL_TIMES = np.arange(0.5, 10.01, 0.5)


def _van_der_pol_rhs(t, state, mu):
    x, v = state
    return [v, mu * (1.0 - x * x) * v - x]


def van_der_pol_solution(mu: float, x0: float, times=VAN_DER_POL_TIMES) -> np.ndarray:
    """``x(t)`` of the Van der Pol oscillator from ``(x0, 0)`` (RK45, ``rtol=1e-7``); NaN where
    the solver fails."""
    solution = solve_ivp(
        _van_der_pol_rhs, (0.0, float(times[-1])), [x0, 0.0], method="RK45", t_eval=times,
        args=(mu,), rtol=1e-7,
    )  # fmt: skip
    if not solution.success or solution.y.shape[1] != len(times):
        return np.full(len(times), np.nan)
    return solution.y[0]


def van_der_pol_data(seed: int = 5) -> np.ndarray:
    """Observations simulated with ``mu = 1.5, x0 = 2, sigma = 0.2`` from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    return van_der_pol_solution(1.5, 2.0) + rng.normal(0.0, 0.2, VAN_DER_POL_TIMES.size)


class VanDerPolOp(Op):
    """``(mu, x0) -> x(t)`` by :func:`van_der_pol_solution`, no gradient; records each call."""

    itypes: ClassVar[list] = [pt.dvector]
    otypes: ClassVar[list] = [pt.dvector]

    def __init__(self) -> None:
        self.log = EvaluationLog()

    def perform(self, node, inputs, outputs):
        mu, x0 = inputs[0]
        self.log.add(inputs[0])
        outputs[0][0] = van_der_pol_solution(mu, x0)


def van_der_pol_model(seed: int = 5) -> tuple[pm.Model, VanDerPolOp]:
    """The Van der Pol model (see the module docstring) and its recording Op."""
    observed = van_der_pol_data(seed)
    op = VanDerPolOp()
    with pm.Model() as model:
        mu = pm.LogNormal("mu", 0.0, 0.5)
        x0 = pm.Normal("x0", 2.0, 0.5)
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", op(pt.stack([mu, x0])), sigma, observed=observed)
    return model, op
