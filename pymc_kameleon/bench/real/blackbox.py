"""Black-box posteriors: log-likelihoods computed in SciPy/NumPy inside an Op without a gradient.

Each model ``X`` has a twin ``X_twin`` with the same priors, value variables and names, whose
likelihood is written in PyTensor (so it has a gradient) and equals the black-box one to
rounding or to the ODE solvers' error (``tests/bench/real/test_blackbox_models.py``). NUTS cannot
run on the black-box models; it runs on the twins to give their references
(:attr:`~pymc_kameleon.bench.real.models.RealModel.reference_model`).

* ``lynx_hare_ode``: Lotka-Volterra predator-prey ODE on the Hudson's Bay Company hare and lynx
  pelts 1900-1920, log-normal errors (the setup of Carpenter's Stan case study), 8-D; black
  box: ``scipy.integrate.odeint`` (LSODA, ``rtol=1e-11``, ``atol=1e-20``: relative control).
* ``nile_kalman``: local-level model (random walk plus noise) of the Nile flow, Kalman-filter
  likelihood with a diffuse initial level, 2-D; black box: a plain NumPy loop.
* ``flu_sir``: SIR epidemic ODE on the 1978 boarding-school influenza outbreak, negative-binomial
  counts of the boys confined to bed, 3-D; black box: ``scipy.integrate.odeint``.

The ODE twins integrate with a fixed-step Taylor-series method (both systems are quadratic,
``x' = p1 x + q1 x y``, ``y' = p2 y + q2 x y``, so the Taylor coefficients follow from Cauchy
products), order 12 for Lotka-Volterra and 8 for SIR, 8 steps per unit of time, in a
``pytensor.scan``. A fixed-step RK4 needed 80 steps per year (1600 scan steps) to match SciPy to
3e-10 in ``log z``, and its gradient took about 20 ms; the Taylor scans match to about 1e-11
where their steps resolve the dynamics (per-capita rates below about 4 per unit of time), with
a gradient of 2-3 ms (PyTensor 2, C backend).
"""

from __future__ import annotations

import functools
import warnings
from typing import ClassVar

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.graph.op import Op
from scipy.integrate import odeint
from scipy.special import gammaln

from pymc_kameleon.bench.real.tables import load_table

__all__ = [
    "FLU_BOYS",
    "FLU_CONFINED",
    "LYNX_HARE_PELTS",
    "LYNX_HARE_YEARS",
    "NumpyLogLikelihood",
    "flu_sir",
    "flu_sir_loglike",
    "flu_sir_twin",
    "lotka_volterra_solution",
    "lynx_hare_loglike",
    "lynx_hare_ode",
    "lynx_hare_twin",
    "nile_kalman",
    "nile_kalman_loglike",
    "nile_kalman_twin",
    "taylor_quadratic_ode",
]

LYNX_HARE_YEARS = np.arange(1900, 1921)
"""Years of the pelt counts."""
LYNX_HARE_PELTS = np.column_stack(
    [
        [30, 47.2, 70.2, 77.4, 36.3, 20.6, 18.1, 21.4, 22, 25.4, 27.1,
         40.3, 57, 76.6, 52.3, 19.5, 11.2, 7.6, 14.6, 16.2, 24.7],
        [4, 6.1, 9.8, 35.2, 59.4, 41.7, 19, 13, 8.3, 9.1, 7.4,
         8, 12.3, 19.5, 45.7, 51.1, 29.7, 15.8, 9.7, 10.1, 8.6],
    ]
)  # fmt: skip
"""Hudson's Bay Company pelts (thousands), 1900-1920; columns hare, lynx (Hewitt 1921, via
Howard 2009)."""
FLU_CONFINED = np.array([3, 8, 28, 76, 222, 293, 257, 237, 192, 126, 70, 28, 12, 5])
"""Boys confined to bed on days 1-14 of the 1978 boarding-school influenza outbreak (BMJ 1978)."""
FLU_BOYS = 763
"""Boys at the school; one infected on day 0."""

_RTOL, _ATOL = 1e-11, 1e-20  # relative control also for populations near zero
_LOG_2PI = float(np.log(2.0 * np.pi))


class NumpyLogLikelihood(Op):
    """A log-likelihood computed by a NumPy/SciPy function of one parameter vector.

    The function must be defined at module level (the Op is pickled by reference to it, as
    ``pm.sample(cores > 1)`` needs). The Op has no ``grad``: gradient-based samplers cannot run.
    PyTensor 3's default Numba backend runs ``perform`` in object mode (with a UserWarning).

    Parameters
    ----------
    loglike : callable
        ``float64 vector -> float``; ``-inf`` where the likelihood cannot be computed.
    """

    __props__ = ("loglike",)
    itypes: ClassVar[list] = [pt.dvector]
    otypes: ClassVar[list] = [pt.dscalar]

    def __init__(self, loglike):
        self.loglike = loglike

    def perform(self, node, inputs, outputs):
        outputs[0][0] = np.asarray(self.loglike(inputs[0]), dtype=np.float64)


def _solve(rhs, z0, times, args) -> np.ndarray | None:
    """``odeint`` at tight tolerances; None if LSODA reports a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "excess work done" and friends: reported via `info`
        z, info = odeint(
            rhs, z0, times, args=args, rtol=_RTOL, atol=_ATOL, mxstep=20_000, full_output=True
        )
    return z if info["message"] == "Integration successful." else None


def _lognormal_logpdf(y, log_median, sigma):
    return (
        -np.log(y) - np.log(sigma) - 0.5 * _LOG_2PI - 0.5 * ((np.log(y) - log_median) / sigma) ** 2
    )


#: above this NB shape the counts are Poisson, as in PyMC's NegativeBinomial (the twins' likelihood)
POISSON_LIMIT_ALPHA = 1e10


def _negbinomial_logpmf(k, mu, alpha):
    if alpha > POISSON_LIMIT_ALPHA:
        # gammaln(k + alpha) - gammaln(alpha) cancels catastrophically for a huge alpha (phi_inv
        # near 0): values off by thousands, some far above the true maximum, where a chain stays
        return k * np.log(mu) - mu - gammaln(k + 1.0)
    return (
        gammaln(k + alpha)
        - gammaln(alpha)
        - gammaln(k + 1.0)
        + alpha * np.log(alpha / (alpha + mu))
        + k * np.log(mu / (alpha + mu))
    )


# ---------------------------------------------------------------------------------------------
# The Taylor-series ODE solver of the twins
# ---------------------------------------------------------------------------------------------


def _taylor_step(x, y, p1, q1, p2, q2, h, order):
    """One Taylor step of ``x' = p1 x + q1 x y``, ``y' = p2 y + q2 x y`` (scalar graph).

    ``p1`` may be None (no linear term): with a constant zero instead, PyTensor's rewriter
    stalls on the many ``0 * x`` products (40 s to compile the log-density). Dividing the
    Cauchy product by ``k + 1`` before multiplying by ``q1`` keeps its ``local_greedy_distributor``
    from stalling in the same way.
    """
    xs, ys = [x], [y]
    for k in range(order):
        # k-th Taylor coefficient of x*y: a Cauchy product of the coefficients so far
        xy = xs[0] * ys[k]
        for j in range(1, k + 1):
            xy = xy + xs[j] * ys[k - j]
        xy = xy / (k + 1)
        xs.append(q1 * xy if p1 is None else p1 * xs[k] / (k + 1) + q1 * xy)
        ys.append(p2 * ys[k] / (k + 1) + q2 * xy)
    x_new, y_new = xs[order], ys[order]
    for k in range(order - 1, -1, -1):  # Horner in h
        x_new, y_new = xs[k] + h * x_new, ys[k] + h * y_new
    return x_new, y_new


def taylor_quadratic_ode(x0, y0, coefficients, n_times, order=12, steps_per_unit=8):
    """Solve ``x' = p1 x + q1 x y``, ``y' = p2 y + q2 x y`` at times ``1, ..., n_times``.

    Fixed-step Taylor series of order ``order``, ``steps_per_unit`` steps per unit of time, in a
    ``pytensor.scan`` (differentiable). The gradient's compile time grows quickly with the
    order: about 40 s at order 12 with ``p1``, and at order 8 without (2 minutes at order 9).

    Parameters
    ----------
    x0, y0 : pytensor.tensor.TensorVariable
        Scalar initial values at time 0.
    coefficients : sequence of 4 scalars
        ``p1, q1, p2, q2``; ``p1`` may be None (zero).
    n_times : int
    order, steps_per_unit : int

    Returns
    -------
    pytensor.tensor.TensorVariable, shape (n_times, 2)
    """
    h = 1.0 / steps_per_unit
    p1 = coefficients[0]

    def step(x, y, *coef):
        return _taylor_step(x, y, *([None] if p1 is None else []), *coef, h, order)

    xs, ys = pytensor.scan(
        step,
        outputs_info=[pt.cast(x0, "float64"), pt.cast(y0, "float64")],
        non_sequences=[pt.cast(c, "float64") for c in coefficients if c is not None],
        n_steps=n_times * steps_per_unit,
        return_updates=False,
    )
    last = steps_per_unit - 1
    return pt.stack([xs[last::steps_per_unit], ys[last::steps_per_unit]], axis=1)


# ---------------------------------------------------------------------------------------------
# Lotka-Volterra on the lynx and hare pelts
# ---------------------------------------------------------------------------------------------


def _lotka_volterra(z, t, alpha, beta, gamma, delta):
    u, v = z  # hares (prey), lynxes (predators)
    return ((alpha - beta * v) * u, (-gamma + delta * u) * v)


def lotka_volterra_solution(theta, z0, times) -> np.ndarray | None:
    """Hares and lynxes at ``times`` (from ``z0`` at time 0) by SciPy's ``odeint``.

    Parameters
    ----------
    theta : array_like, shape (4,)
        ``alpha, beta, gamma, delta``.
    z0 : array_like, shape (2,)
    times : array_like
        Increasing, starting at 0.

    Returns
    -------
    numpy.ndarray, shape (len(times), 2), or None
        None if LSODA reports a failure.
    """
    return _solve(_lotka_volterra, np.asarray(z0, dtype=float), times, tuple(theta))


def lynx_hare_loglike(params: np.ndarray) -> float:
    """Log-likelihood of the pelts: SciPy's ``odeint``, log-normal errors.

    Parameters
    ----------
    params : numpy.ndarray, shape (8,)
        ``alpha, beta, gamma, delta, z0 (hare, lynx), sigma (hare, lynx)``.

    Returns
    -------
    float
        ``-inf`` if the solver fails or a population is not positive.
    """
    theta, z0, sigma = params[:4], params[4:6], params[6:8]
    times = np.arange(LYNX_HARE_PELTS.shape[0], dtype=float)
    z = lotka_volterra_solution(theta, z0, times)
    if z is None or not np.all(np.isfinite(z) & (z > 0.0)):
        return -np.inf
    return float(np.sum(_lognormal_logpdf(LYNX_HARE_PELTS, np.log(z), sigma)))


def _lynx_hare_priors(start_at_prior_means: bool) -> tuple[pm.Model, list]:
    """The priors of the case study; the twin and the black box share them.

    The black box starts where PyMC starts it (a truncated normal's default initial value is
    1, 19 sds out for beta and delta); the twin starts at the prior means, since at 1 the cycles
    are too fast for its fixed Taylor steps (only its NUTS reference run starts there). From
    the prior means the black box has a spurious local mode nearby
    (``benchmarks/spurious_modes.py``).
    """
    model = pm.Model(coords={"species": ["hare", "lynx"]})
    with model:
        rates = [
            pm.TruncatedNormal(
                name, mu=mu, sigma=sd, lower=0.0, initval=mu if start_at_prior_means else None
            )
            for name, mu, sd in (("alpha", 1, 0.5), ("beta", 0.05, 0.05),
                                 ("gamma", 1, 0.5), ("delta", 0.05, 0.05))
        ]  # fmt: skip
        z0 = pm.LogNormal("z0", mu=np.log(10.0), sigma=1.0, dims="species")
        sigma = pm.LogNormal("sigma", mu=-1.0, sigma=1.0, dims="species")
    return model, [*rates, z0, sigma]


def lynx_hare_ode() -> pm.Model:
    """Lotka-Volterra on the 1900-1920 hare and lynx pelts, SciPy ODE in a black box (8-D).

    ``du/dt = (alpha - beta v) u``, ``dv/dt = (-gamma + delta u) v`` from ``z0`` in 1900;
    ``pelts[t, k] ~ LogNormal(log z[t, k], sigma[k])`` for the 21 years, 1900 included.
    Priors: ``alpha, gamma ~ N(1, 0.5)``, ``beta, delta ~ N(0.05, 0.05)``, all truncated at 0;
    ``z0 ~ LogNormal(log 10, 1)``, ``sigma ~ LogNormal(-1, 1)``.

    Returns
    -------
    pymc.Model
    """
    model, (alpha, beta, gamma, delta, z0, sigma) = _lynx_hare_priors(start_at_prior_means=False)
    with model:
        params = pt.concatenate([pt.stack([alpha, beta, gamma, delta]), z0, sigma])
        pm.Potential("pelts", NumpyLogLikelihood(lynx_hare_loglike)(params))
    return model


def lynx_hare_twin() -> pm.Model:
    """:func:`lynx_hare_ode` with the ODE solved in PyTensor (:func:`taylor_quadratic_ode`).

    Returns
    -------
    pymc.Model
    """
    model, (alpha, beta, gamma, delta, z0, sigma) = _lynx_hare_priors(start_at_prior_means=True)
    with model:
        n_later = LYNX_HARE_PELTS.shape[0] - 1
        z = taylor_quadratic_ode(z0[0], z0[1], (alpha, -beta, -gamma, delta), n_later)
        log_z = pt.log(pt.concatenate([z0[None, :], z], axis=0))
        pm.LogNormal("pelts", mu=log_z, sigma=sigma, observed=LYNX_HARE_PELTS)
    return model


# ---------------------------------------------------------------------------------------------
# SIR on the boarding-school influenza outbreak
# ---------------------------------------------------------------------------------------------


def _sir(z, t, beta, gamma):
    s, i, _ = z
    infections = beta * s * i / FLU_BOYS
    return (-infections, infections - gamma * i, gamma * i)


def flu_sir_loglike(params: np.ndarray) -> float:
    """Log-likelihood of the bed counts: SciPy's ``odeint`` of the SIR model, NB counts.

    Parameters
    ----------
    params : numpy.ndarray, shape (3,)
        ``beta, gamma, phi_inv`` (``phi_inv`` the inverse of the NB dispersion).

    Returns
    -------
    float
        ``-inf`` if the solver fails or the infected are not positive.
    """
    beta, gamma, phi_inv = params
    z0 = np.array([FLU_BOYS - 1.0, 1.0, 0.0])
    z = _solve(_sir, z0, np.arange(FLU_CONFINED.size + 1.0), (beta, gamma))
    infected = None if z is None else z[1:, 1]
    if infected is None or not np.all(np.isfinite(infected) & (infected > 0.0)):
        return -np.inf
    return float(np.sum(_negbinomial_logpmf(FLU_CONFINED, infected, 1.0 / phi_inv)))


def _flu_priors() -> tuple[pm.Model, list]:
    """The priors of the Stan SIR case study; the twin and the black box share them."""
    with pm.Model() as model:
        beta = pm.TruncatedNormal("beta", mu=2.0, sigma=1.0, lower=0.0, initval=2.0)
        gamma = pm.TruncatedNormal("gamma", mu=0.4, sigma=0.5, lower=0.0, initval=0.4)
        phi_inv = pm.Exponential("phi_inv", lam=5.0)
    return model, [beta, gamma, phi_inv]


def flu_sir() -> pm.Model:
    """SIR epidemic on the 1978 boarding-school influenza outbreak, SciPy ODE in a black box (3-D).

    ``S' = -beta S I / N``, ``I' = beta S I / N - gamma I`` (``N = 763``, ``S(0) = 762``,
    ``I(0) = 1``); ``confined[d] ~ NegativeBinomial(mu=I(d), alpha=1 / phi_inv)`` for days
    1-14. Priors: ``beta ~ N(2, 1)``, ``gamma ~ N(0.4, 0.5)``, both truncated at 0,
    ``phi_inv ~ Exponential(5)``.

    Returns
    -------
    pymc.Model
    """
    model, (beta, gamma, phi_inv) = _flu_priors()
    with model:
        params = pt.stack([beta, gamma, phi_inv])
        pm.Potential("confined", NumpyLogLikelihood(flu_sir_loglike)(params))
    return model


def flu_sir_twin() -> pm.Model:
    """:func:`flu_sir` with the ODE solved in PyTensor (:func:`taylor_quadratic_ode`).

    Returns
    -------
    pymc.Model
    """
    model, (beta, gamma, phi_inv) = _flu_priors()
    with model:
        rate = beta / FLU_BOYS
        coefficients = (None, -rate, -gamma, rate)
        z = taylor_quadratic_ode(FLU_BOYS - 1.0, 1.0, coefficients, FLU_CONFINED.size, order=8)
        pm.NegativeBinomial("confined", mu=z[:, 1], alpha=1.0 / phi_inv, observed=FLU_CONFINED)
    return model


# ---------------------------------------------------------------------------------------------
# Local-level model of the Nile, Kalman filter
# ---------------------------------------------------------------------------------------------


@functools.cache
def _nile_flow() -> np.ndarray:
    return load_table("nile.csv")["volume"]


def nile_kalman_loglike(params: np.ndarray, y: np.ndarray | None = None) -> float:
    """Kalman-filter log-likelihood of the local-level model, diffuse initial level (NumPy).

    ``y[t] = mu[t] + eps[t]``, ``mu[t+1] = mu[t] + eta[t]``. With a diffuse prior on ``mu[0]``
    the first observation only fixes the level: the likelihood is that of ``y[1:]`` given
    ``y[0]``, starting from ``a = y[0]``, ``P = sd_obs**2 + sd_level**2`` (the exact diffuse
    initialisation of Durbin and Koopman 2012, chapter 2).

    Parameters
    ----------
    params : numpy.ndarray, shape (2,)
        ``log_sigma_obs, log_sigma_level``.
    y : numpy.ndarray, optional
        The series (default: the Nile flow).

    Returns
    -------
    float
    """
    y = _nile_flow() if y is None else y
    var_obs, var_level = np.exp(2.0 * np.asarray(params, dtype=float))
    a, p, total = y[0], var_obs + var_level, 0.0
    for y_t in y[1:]:
        f = p + var_obs  # one-step prediction variance of y_t
        v = y_t - a
        total -= 0.5 * (_LOG_2PI + np.log(f) + v * v / f)
        gain = p / f
        a, p = a + gain * v, p * (1.0 - gain) + var_level
    return float(total)


def _nile_priors() -> tuple[pm.Model, list]:
    with pm.Model() as model:
        sds = [pm.Normal(name, mu=np.log(100.0), sigma=2.0)
               for name in ("log_sigma_obs", "log_sigma_level")]  # fmt: skip
    return model, sds


def nile_kalman() -> pm.Model:
    """Local-level model of the Nile flow 1871-1970, NumPy Kalman filter in a black box (2-D).

    Free variables: the log-sds of the observation and level noise, each ``~ N(log 100, 2)``
    (sds from about 2 to 5000, in the units of the flow, 10^8 m^3; the sample sd is 169).
    Likelihood: :func:`nile_kalman_loglike`.

    Returns
    -------
    pymc.Model
    """
    model, sds = _nile_priors()
    with model:
        pm.Potential("flow", NumpyLogLikelihood(nile_kalman_loglike)(pt.stack(sds)))
    return model


def _kalman_step(y_t, a, p, var_obs, var_level):
    f = p + var_obs
    v = y_t - a
    gain = p / f
    term = -0.5 * (_LOG_2PI + pt.log(f) + v * v / f)
    return a + gain * v, p * (1.0 - gain) + var_level, term


def nile_kalman_twin() -> pm.Model:
    """:func:`nile_kalman` with the Kalman recursion in a ``pytensor.scan``.

    Returns
    -------
    pymc.Model
    """
    y = _nile_flow()
    model, (log_sd_obs, log_sd_level) = _nile_priors()
    with model:
        var_obs, var_level = pt.exp(2.0 * log_sd_obs), pt.exp(2.0 * log_sd_level)
        _, _, terms = pytensor.scan(
            _kalman_step,
            sequences=[pt.as_tensor_variable(y[1:])],
            outputs_info=[pt.as_tensor_variable(y[0]), var_obs + var_level, None],
            non_sequences=[var_obs, var_level],
            return_updates=False,
        )
        pm.Potential("flow", terms.sum())
    return model
