"""A black-box pharmacokinetic posterior with heavy right tails: Michaelis–Menten elimination.

One compartment, an oral dose absorbed at first order, elimination saturating at a maximum rate
(Michaelis–Menten)::

    dC/dt = k_a (D / V) exp(-k_a t) - V_m C / (K_m + C),    C(0) = 0,

with the dose per volume ``D / V`` known (10 mg/L), concentrations ``C`` in mg/L and time in
hours. Fourteen concentrations from 15 minutes to 48 hours are observed with log-normal error
``sigma``. They were simulated once (:func:`simulate_pk_data`, seed 20261128; shipped in
``data/pk_mm.csv``) from ``k_a = 1.2 /h``, ``K_m = 10 mg/L``, ``V_m = 1 mg/L/h`` and
``sigma = 0.2``. The peak concentration (about 9 mg/L) is near ``K_m``, so the data rule out a
small ``K_m`` (the elimination would be nearly zero-order) but not a large one: as ``K_m`` grows
with ``V_m / K_m`` held, the elimination becomes linear and the fit only slowly worse (the
profile log-likelihood levels off about 4 below its maximum). Under weak log-normal priors the
posterior has a steep left side and a long right tail in ``log K_m`` and ``log V_m`` (the
parameters are sampled on the log scale): the 95 % quantile of ``log K_m`` is 2.0 above its
median, the 5 % one 0.9 below, and the tail runs on along a narrow ridge that bends as
``V_m / K_m`` settles to its linear-elimination value. The start-up's climb rarely converges on
it (most chains fall back to the ordinary warm-up).

* ``pk_mm_ode``: the likelihood by SciPy's ``odeint`` (LSODA, ``rtol=1e-11``) inside an Op
  without a gradient (:class:`~pymc_kameleon.bench.real.blackbox.NumpyLogLikelihood`);
* ``pk_mm_twin``: the same model with the ODE solved in PyTensor (:func:`taylor_pk_mm`, a
  fixed-step Taylor series in a ``pytensor.scan``), which NUTS samples for the reference.

The Taylor coefficients of the elimination term ``w = C / (K_m + C)`` follow from
``(K_m + C) w = C``: ``w_k = (C_k - sum_{j=1..k} C_j w_{k-j}) / (K_m + C_0)``; those of the
absorption term are the exponential's. Order 10 with 16 steps per hour matches LSODA to about
1e-10 in ``log C`` where ``K_m`` is above 2 mg/L and ``k_a`` below 4 /h (at ``K_m = 5``: 7e-11;
order 10 with 8 steps per hour: 1e-7 there; higher orders do not make up for longer steps).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from scipy.integrate import odeint

from pymc_kameleon.bench.real.blackbox import NumpyLogLikelihood
from pymc_kameleon.bench.real.tables import load_table

__all__ = [
    "PK_DOSE",
    "PK_TIMES",
    "PK_TRUTH",
    "pk_concentrations",
    "pk_mm_loglike",
    "pk_mm_ode",
    "pk_mm_twin",
    "simulate_pk_data",
    "taylor_pk_mm",
]

PK_DOSE = 10.0
"""Dose per volume of distribution, mg/L (e.g. 100 mg into 10 L), known."""
PK_TIMES = np.array([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 36.0, 48.0])
"""Sampling times, hours after the dose."""
PK_TRUTH = {"k_a": 1.2, "K_m": 10.0, "V_m": 1.0, "sigma": 0.2}
"""The values the data were simulated from."""
PK_SEED = 20261128
_STEPS_PER_HOUR, _ORDER = 16, 10
_RTOL, _ATOL = 1e-11, 1e-20
_LOG_2PI = float(np.log(2.0 * np.pi))


def _rhs(c, t, k_a, k_m, v_m):
    return k_a * PK_DOSE * np.exp(-k_a * t) - v_m * c / (k_m + c)


def pk_concentrations(k_a: float, k_m: float, v_m: float) -> np.ndarray | None:
    """Concentrations at :data:`PK_TIMES` by SciPy's ``odeint`` (LSODA, relative control).

    Parameters
    ----------
    k_a, k_m, v_m : float
        Absorption rate (/h), Michaelis constant (mg/L), maximum elimination rate (mg/L/h).

    Returns
    -------
    numpy.ndarray, shape (12,), or None
        None if LSODA reports a failure.
    """
    times = np.concatenate([[0.0], PK_TIMES])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "excess work done" and friends: reported via `info`
        z, info = odeint(
            _rhs, [0.0], times, args=(k_a, k_m, v_m), rtol=_RTOL, atol=_ATOL, mxstep=20_000,
            full_output=True,
        )  # fmt: skip
    return z[1:, 0] if info["message"] == "Integration successful." else None


def simulate_pk_data(seed: int = PK_SEED) -> np.ndarray:
    """The observed concentrations: the solution at :data:`PK_TRUTH` with log-normal error.

    Parameters
    ----------
    seed : int, default 20261128

    Returns
    -------
    numpy.ndarray, shape (12,)
    """
    t = PK_TRUTH
    c = pk_concentrations(t["k_a"], t["K_m"], t["V_m"])
    return c * np.exp(t["sigma"] * np.random.default_rng(seed).standard_normal(c.size))


@functools.cache
def _observed() -> np.ndarray:
    return load_table("pk_mm.csv")["concentration"]


def pk_mm_loglike(params: np.ndarray) -> float:
    """Log-likelihood of the concentrations: SciPy's ``odeint``, log-normal errors.

    Parameters
    ----------
    params : numpy.ndarray, shape (4,)
        ``log k_a, log K_m, log V_m, sigma``.

    Returns
    -------
    float
        ``-inf`` if the solver fails or a concentration is not positive.
    """
    log_ka, log_km, log_vm, sigma = params
    c = pk_concentrations(np.exp(log_ka), np.exp(log_km), np.exp(log_vm))
    if c is None or not np.all(np.isfinite(c) & (c > 0.0)):
        return -np.inf
    y = np.log(_observed())
    r = (y - np.log(c)) / sigma
    return float(np.sum(-y - np.log(sigma) - 0.5 * _LOG_2PI - 0.5 * r * r))


def _pk_priors() -> tuple[pm.Model, list]:
    """Priors shared by the black box and its twin (weak on ``K_m`` and ``V_m``)."""
    with pm.Model() as model:
        log_ka = pm.Normal("log_ka", mu=0.0, sigma=1.0)
        log_km = pm.Normal("log_Km", mu=np.log(20.0), sigma=2.0)
        log_vm = pm.Normal("log_Vm", mu=np.log(2.0), sigma=2.0)
        sigma = pm.HalfNormal("sigma", sigma=0.5)
    return model, [log_ka, log_km, log_vm, sigma]


def pk_mm_ode() -> pm.Model:
    """One-compartment oral PK with Michaelis–Menten elimination, SciPy ODE in a black box (4-D).

    ``concentration[i] ~ LogNormal(log C(t_i), sigma)`` at the 14 times of :data:`PK_TIMES`,
    ``C`` as in the module docstring. Priors: ``log k_a ~ N(0, 1)``,
    ``log K_m ~ N(log 20, 2)``, ``log V_m ~ N(log 2, 2)``, ``sigma ~ HalfNormal(0.5)``.

    Returns
    -------
    pymc.Model
    """
    model, params = _pk_priors()
    with model:
        pm.Potential("concentration", NumpyLogLikelihood(pk_mm_loglike)(pt.stack(params)))
    return model


def taylor_pk_mm(k_a, k_m, v_m, hours: int = 48, order: int = _ORDER, steps: int = _STEPS_PER_HOUR):
    """Solve ``C' = k_a D exp(-k_a t) - v_m C / (k_m + C)``, ``C(0) = 0``, in PyTensor.

    Fixed-step Taylor series of order ``order``, ``steps`` steps per hour, in a ``pytensor.scan``
    (differentiable); the absorption term enters each step through its exact value at the step's
    start.

    Parameters
    ----------
    k_a, k_m, v_m : pytensor.tensor.TensorVariable
        Scalars.
    hours : int
        Length of the solution.
    order, steps : int

    Returns
    -------
    pytensor.tensor.TensorVariable, shape (hours * steps,)
        ``C`` at the ends of the steps, times ``1 / steps, 2 / steps, ..., hours``.
    """
    h, n = 1.0 / steps, hours * steps
    absorbed = k_a * PK_DOSE * pt.exp(-k_a * h * pt.arange(n))  # k_a A at each step's start

    def step(a0, c0, k_a, k_m, v_m):
        a, c, w = [a0], [c0], []
        for k in range(order):
            rest = c[k]
            for j in range(1, k + 1):
                rest = rest - c[j] * w[k - j]
            w.append(rest / (k_m + c0))
            a.append(-k_a * a[k] / (k + 1))
            c.append((a[k] - v_m * w[k]) / (k + 1))
        out = c[order]
        for k in range(order - 1, -1, -1):  # Horner in h
            out = c[k] + h * out
        return out

    return pytensor.scan(
        step,
        sequences=[absorbed],
        outputs_info=[pt.as_tensor_variable(np.float64(0.0))],
        non_sequences=[pt.cast(k_a, "float64"), pt.cast(k_m, "float64"), pt.cast(v_m, "float64")],
        n_steps=n,
        return_updates=False,
    )


def pk_mm_twin() -> pm.Model:
    """:func:`pk_mm_ode` with the ODE solved in PyTensor (:func:`taylor_pk_mm`).

    Returns
    -------
    pymc.Model
    """
    model, (log_ka, log_km, log_vm, sigma) = _pk_priors()
    with model:
        c = taylor_pk_mm(pt.exp(log_ka), pt.exp(log_km), pt.exp(log_vm))
        at = np.rint(PK_TIMES * _STEPS_PER_HOUR).astype(int) - 1
        pm.LogNormal("concentration", mu=pt.log(c[at]), sigma=sigma, observed=_observed())
    return model
