"""Sixteen posteriors of real (and two of simulated) data, written the way a PyMC user writes them.

Twelve are ordinary PyMC models; four (from :mod:`.blackbox` and :mod:`.pk_ode`) have a
log-density without a gradient (a SciPy ODE solve or a NumPy Kalman filter inside an Op), so NUTS
cannot run on them and their references come from differentiable twins in
:data:`REFERENCE_ONLY_MODELS`.

Every model is built by a function returning a fresh :class:`pymc.Model` whose free variables
have PyMC's default transforms and the natural (not pre-standardised) parameterisation. The data
ship as small CSV files in ``data/`` (sources and licences in ``data/SOURCES.md``) or, for the
eight-schools and coal-mining data, in this module.

:data:`REAL_MODELS` maps each name to a :class:`RealModel`: the builder, what is compared with
the reference (:attr:`RealModel.var_names`), whether every prior is proper (``pm.sample_smc``
needs to draw from the prior), and which model's NUTS run gives the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pymc.distributions.transforms import ordered

from pymc_kameleon.bench.real.blackbox import (
    flu_sir,
    flu_sir_twin,
    lynx_hare_ode,
    lynx_hare_twin,
    nile_kalman,
    nile_kalman_twin,
)
from pymc_kameleon.bench.real.pk_ode import pk_mm_ode, pk_mm_twin
from pymc_kameleon.bench.real.tables import load_table

__all__ = [
    "CI_MODELS",
    "COAL_BIN_COUNTS",
    "COAL_BIN_MIDPOINTS",
    "EIGHT_SCHOOLS_SIGMA",
    "EIGHT_SCHOOLS_Y",
    "REAL_MODELS",
    "REFERENCE_ONLY_MODELS",
    "RealModel",
    "arma11_residuals",
    "geometric_filter",
    "get_real_model",
    "linear_recurrence",
    "reference_source",
]


# ---------------------------------------------------------------------------------------------
# Regressions
# ---------------------------------------------------------------------------------------------

LONGLEY_PREDICTORS = ("GNPDEFL", "GNP", "UNEMP", "ARMED", "POP", "YEAR")


def longley() -> pm.Model:
    """Longley (1967) employment regression, raw predictors, wide normal priors (8-D).

    Predictor correlations reach 0.99+ (GNP, POP, YEAR); posterior sds run from about 0.03
    (``beta[GNP]``) to about 9e5 (the intercept, which is nearly collinear with ``beta[YEAR]``).

    Returns
    -------
    pymc.Model
    """
    d = load_table("longley.csv")
    x = np.column_stack([d[c] for c in LONGLEY_PREDICTORS])
    with pm.Model(coords={"predictor": list(LONGLEY_PREDICTORS)}) as model:
        intercept = pm.Normal("intercept", 0.0, 1e7)
        beta = pm.Normal("beta", 0.0, 1e4, dims="predictor")
        sigma = pm.HalfNormal("sigma", 1e4)
        pm.Normal("y", intercept + pt.dot(x, beta), sigma, observed=d["TOTEMP"])
    return model


def stackloss_standardised() -> pm.Model:
    """Brownlee's stack-loss regression on z-scored response and predictors (5-D, easy).

    Returns
    -------
    pymc.Model
    """
    d = load_table("stackloss.csv")
    names = ("AIRFLOW", "WATERTEMP", "ACIDCONC")
    x = np.column_stack([d[c] for c in names])
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    y = (d["STACKLOSS"] - d["STACKLOSS"].mean()) / d["STACKLOSS"].std()
    with pm.Model(coords={"predictor": list(names)}) as model:
        intercept = pm.Normal("intercept", 0.0, 1.0)
        beta = pm.Normal("beta", 0.0, 1.0, dims="predictor")
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", intercept + pt.dot(x, beta), sigma, observed=y)
    return model


MACRO_PREDICTORS = ("realgdp", "realinv", "realgovt", "realdpi", "cpi", "m1", "tbilrate", "unemp")


def macro_flat() -> pm.Model:
    """US quarterly consumption growth on eight macro series, flat priors (10-D).

    Response: 100 x log growth of real consumption, 1959Q2-2009Q3 (202 quarters). Predictors:
    100 x log growth of real GDP, investment, government spending, disposable income, CPI and
    M1, and the levels of the T-bill rate and unemployment. ``pm.Flat`` on the intercept and
    slopes, ``pm.HalfFlat`` on the noise sd: improper priors, proper posterior.

    Returns
    -------
    pymc.Model
    """
    d = load_table("macrodata.csv")

    def growth(c: str) -> np.ndarray:
        return 100.0 * np.diff(np.log(d[c]))

    x = np.column_stack(
        [growth(c) for c in MACRO_PREDICTORS[:6]] + [d[c][1:] for c in MACRO_PREDICTORS[6:]]
    )
    with pm.Model(coords={"predictor": list(MACRO_PREDICTORS)}) as model:
        intercept = pm.Flat("intercept")
        beta = pm.Flat("beta", dims="predictor")
        sigma = pm.HalfFlat("sigma")
        pm.Normal("y", intercept + pt.dot(x, beta), sigma, observed=growth("realcons"))
    return model


ANES_PREDICTORS = ("age", "educ", "income", "selfLR", "TVnews")


def anes_logit_flat() -> pm.Model:
    """1996 US presidential vote (Dole = 1) on five raw survey answers, flat priors (6-D).

    Returns
    -------
    pymc.Model
    """
    d = load_table("anes96.csv")
    x = np.column_stack([d[c] for c in ANES_PREDICTORS])
    with pm.Model(coords={"predictor": list(ANES_PREDICTORS)}) as model:
        intercept = pm.Flat("intercept")
        beta = pm.Flat("beta", dims="predictor")
        pm.Bernoulli("vote", logit_p=intercept + pt.dot(x, beta), observed=d["vote"])
    return model


def scales_regression() -> pm.Model:
    """Regression whose posterior sds span 1e-3 to 1e3, with correlated coefficients (9-D).

    Seven predictors with lag-one correlation 0.8 on scales 1e-4, 1e-3, ..., 1e2 (simulated with
    a fixed seed, ``benchmarks/extract_real_data.py``); the coefficient sds are about
    ``2 / scale`` divided by 10, from about 2e3 down to 2e-3.

    Returns
    -------
    pymc.Model
    """
    d = load_table("scales.csv")
    x = np.column_stack([d[f"x{k}"] for k in range(7)])
    with pm.Model() as model:
        intercept = pm.Normal("intercept", 0.0, 100.0)
        beta = pm.Normal("beta", 0.0, 1e6, shape=7)
        sigma = pm.HalfNormal("sigma", 10.0)
        pm.Normal("y", intercept + pt.dot(x, beta), sigma, observed=d["y"])
    return model


# ---------------------------------------------------------------------------------------------
# Hierarchical
# ---------------------------------------------------------------------------------------------

EIGHT_SCHOOLS_Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
"""Estimated coaching effects of the eight schools (Rubin 1981, Table 2)."""
EIGHT_SCHOOLS_SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
"""Their standard errors."""
_SCHOOLS = [f"school {k}" for k in range(8)]


def eight_schools_centered() -> pm.Model:
    """Eight schools, centred: ``theta ~ Normal(mu, tau)`` (10-D, a funnel).

    Returns
    -------
    pymc.Model
    """
    with pm.Model(coords={"school": _SCHOOLS}) as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta = pm.Normal("theta", mu, tau, dims="school")
        pm.Normal("y", theta, EIGHT_SCHOOLS_SIGMA, observed=EIGHT_SCHOOLS_Y, dims="school")
    return model


def eight_schools_noncentered() -> pm.Model:
    """Eight schools, non-centred: ``theta = mu + tau * theta_z`` (10-D).

    Returns
    -------
    pymc.Model
    """
    with pm.Model(coords={"school": _SCHOOLS}) as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta_z = pm.Normal("theta_z", 0.0, 1.0, dims="school")
        theta = pm.Deterministic("theta", mu + tau * theta_z, dims="school")
        pm.Normal("y", theta, EIGHT_SCHOOLS_SIGMA, observed=EIGHT_SCHOOLS_Y, dims="school")
    return model


# ---------------------------------------------------------------------------------------------
# Time series
# ---------------------------------------------------------------------------------------------

AR_ORDER = 5


def sunspots_ar() -> pm.Model:
    """AR(5) with intercept on the yearly sunspot numbers 1700-2008, conditional likelihood (7-D).

    Returns
    -------
    pymc.Model
    """
    y = load_table("sunspots.csv")["SUNACTIVITY"]
    p, n = AR_ORDER, y.size
    lags = np.column_stack([y[p - k : n - k] for k in range(1, p + 1)])
    with pm.Model(coords={"lag": list(range(1, p + 1))}) as model:
        intercept = pm.Normal("intercept", 0.0, 50.0)
        rho = pm.Normal("rho", 0.0, 1.0, dims="lag")
        sigma = pm.HalfNormal("sigma", 50.0)
        pm.Normal("y", intercept + pt.dot(lags, rho), sigma, observed=y[p:])
    return model


def linear_recurrence(a, b):
    """Solve ``x[t] = a * x[t-1] + b[t]`` (``x[0] = b[0]``) without a loop over ``t``.

    Hillis-Steele doubling: after the steps with shifts 1, 2, 4, ..., ``k``,
    ``x[t] = sum_{j < 2k} a**j b[t-j]``; ``ceil(log2(n))`` vector operations in all, each
    differentiable, so the graph stays small and fast where ``pytensor.scan`` costs about a
    millisecond per evaluation of a few hundred steps.

    Parameters
    ----------
    a : scalar or pytensor.tensor.TensorVariable
        The constant coefficient.
    b : pytensor.tensor.TensorVariable, shape (n,)
        The inputs; ``n`` must be known (a static shape).

    Returns
    -------
    pytensor.tensor.TensorVariable, shape (n,)
    """
    n = _static_length(b)
    x, power, shift = b, a, 1
    while shift < n:
        x = x + power * pt.concatenate([pt.zeros(shift), x[:-shift]])
        power, shift = power * power, 2 * shift
    return x


def _static_length(b) -> int:
    n = b.type.shape[0]
    if n is None:
        raise ValueError("`b` needs a static length, e.g. pt.specify_shape(b, (n,))")
    return n


def geometric_filter(a, b):
    """Solve ``x[t] = a * x[t-1] + b[t]`` (``x[0] = b[0]``) as one product ``x = W b``.

    ``W[t, j] = a**(t - j)`` for ``j <= t`` (zero above the diagonal): ``n**2`` powers per
    evaluation, but a graph of a handful of nodes whose gradient PyTensor compiles in seconds.
    The gradient graph of :func:`linear_recurrence` at ``n = 300`` (about 5000 nodes) did not
    finish compiling in 20 minutes, so NUTS could not give the GARCH model a reference.

    Parameters
    ----------
    a : scalar or pytensor.tensor.TensorVariable
        The constant coefficient (its gradient at ``a = 0`` is not finite).
    b : pytensor.tensor.TensorVariable, shape (n,)
        The inputs; ``n`` must be known (a static shape).

    Returns
    -------
    pytensor.tensor.TensorVariable, shape (n,)
    """
    n = _static_length(b)
    lag = np.subtract.outer(np.arange(n), np.arange(n)).astype(np.float64)
    below = lag >= 0.0
    weights = pt.where(below, a ** np.where(below, lag, 0.0), 0.0)
    return pt.dot(weights, b)


def arma11_residuals(y, c, phi, theta):
    """Innovations of a conditional ARMA(1,1), loop-free.

    ``eps[t] = u[t] - theta * eps[t-1]`` with ``u[t] = y[t+1] - c - phi * y[t]`` and a zero
    innovation before the first one (:func:`linear_recurrence` with ``a = -theta``).

    Parameters
    ----------
    y : array_like, shape (n,)
        The series (data).
    c, phi, theta : pytensor.tensor.TensorVariable or float
        Intercept, AR and MA coefficients.

    Returns
    -------
    pytensor.tensor.TensorVariable, shape (n - 1,)
        Innovations of ``y[1:]``.
    """
    y = np.asarray(y, dtype=float)
    u = pt.specify_shape(pt.as_tensor_variable(y[1:]) - c - phi * y[:-1], (y.size - 1,))
    return linear_recurrence(-theta, u)


def nile_arma() -> pm.Model:
    """ARMA(1,1) with intercept on the Nile's annual flow at Aswan, 1871-1970 (4-D).

    ``y[t] ~ Normal(c + phi y[t-1] + theta eps[t-1], sigma)`` given ``y[0]`` and ``eps[0] = 0``;
    the innovations come from :func:`arma11_residuals` (no scan).

    Returns
    -------
    pymc.Model
    """
    y = load_table("nile.csv")["volume"]
    with pm.Model() as model:
        c = pm.Normal("c", 0.0, 1000.0)
        phi = pm.Uniform("phi", -1.0, 1.0)
        theta = pm.Uniform("theta", -1.0, 1.0)
        sigma = pm.HalfNormal("sigma", 500.0)
        eps = arma11_residuals(y, c, phi, theta)
        pm.Normal("y", y[1:] - eps, sigma, observed=y[1:])
    return model


def garch() -> pm.Model:
    """GARCH(1,1) with constant mean on 300 simulated daily returns (4-D).

    Priors as PyMC's former ``GARCH11`` example: ``alpha ~ U(0, 1)``, ``beta ~ U(0, 1 - alpha)``.
    The first conditional variance is the sample variance of the returns. The variance
    recursion is one matrix product (:func:`geometric_filter`: about 0.3 ms per log-density
    and 0.6 ms per gradient here; a ``pytensor.scan`` version costs about 1 ms and 5 ms, and
    the gradient of :func:`linear_recurrence` does not compile in reasonable time).

    Returns
    -------
    pymc.Model
    """
    r = load_table("garch_returns.csv")["r"]
    s2_0 = float(np.var(r))
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        omega = pm.HalfNormal("omega", 1.0)
        alpha = pm.Uniform("alpha", 0.0, 1.0)
        beta = pm.Uniform("beta", 0.0, 1.0 - alpha)
        shocks2 = (r[:-1] - mu) ** 2
        inputs = pt.concatenate([pt.as_tensor_variable([s2_0]), omega + alpha * shocks2])
        variance = geometric_filter(beta, pt.specify_shape(inputs, (r.size,)))
        pm.Normal("r", mu, pt.sqrt(variance), observed=r)
    return model


# ---------------------------------------------------------------------------------------------
# Latent Gaussian process, mixture
# ---------------------------------------------------------------------------------------------

COAL_BIN_COUNTS = np.array([21, 20, 28, 23, 21, 15, 7, 6, 9, 3, 4, 11, 11, 8, 1, 3])
"""British coal-mining disasters 1851-1962 (Jarrett 1979; 191 events) in 16 bins of 7 years."""
COAL_BIN_MIDPOINTS = 1851.0 + 7.0 * np.arange(16) + 3.5
"""Bin midpoints in years."""


def coal_gp() -> pm.Model:
    """Latent-GP Poisson model of the coal-mining disasters, ``pm.gp.Latent`` (19-D).

    ``count[k] ~ Poisson(exp(mu + f(year[k])))``, ``f ~ GP(0, eta**2 ExpQuad(ell))`` with the
    years unscaled; ``pm.gp.Latent`` samples the whitened ``f_rotated_`` (its default).

    Returns
    -------
    pymc.Model
    """
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 3.0)
        ell = pm.Gamma("ell", alpha=2.0, beta=0.05)
        eta = pm.HalfNormal("eta", 1.0)
        gp = pm.gp.Latent(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls=ell))
        f = gp.prior("f", X=COAL_BIN_MIDPOINTS[:, None])
        pm.Poisson("count", pt.exp(mu + f), observed=COAL_BIN_COUNTS)
    return model


def faithful_mixture() -> pm.Model:
    """Two-component normal mixture of Old Faithful waiting times, ordered means (5-D).

    Returns
    -------
    pymc.Model
    """
    y = load_table("faithful.csv")["waiting"]
    with pm.Model(coords={"component": ["short", "long"]}) as model:
        w = pm.Dirichlet("w", np.ones(2), dims="component")
        mu = pm.Normal(
            "mu", 70.0, 20.0, dims="component", transform=ordered, initval=np.array([55.0, 80.0])
        )
        sigma = pm.HalfNormal("sigma", 10.0, dims="component")
        pm.NormalMixture("y", w, mu, sigma, observed=y)
    return model


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RealModel:
    """One posterior of the validation suite.

    Parameters
    ----------
    name : str
        Key in :data:`REAL_MODELS`.
    build : callable
        Returns a fresh ``pm.Model``.
    title : str
        One-line description for reports.
    source : str
        Data source (details and licence in ``data/SOURCES.md``).
    proper_prior : bool
        Every prior is proper (``pm.sample_smc`` can run).
    deterministics : tuple of str
        Deterministic variables compared besides the free variables.
    reference_model : str, optional
        Model whose NUTS run gives this model's reference (same variable names), when NUTS on
        this one is unreliable (the centred eight schools) or impossible (the black-box models,
        whose differentiable twins are in :data:`REFERENCE_ONLY_MODELS`).
    reference_nuts : dict
        Overrides of the reference run's NUTS settings
        (:class:`~pymc_kameleon.bench.real.reference.NutsSettings` fields).
    """

    name: str
    build: Callable[[], pm.Model]
    title: str
    source: str
    proper_prior: bool = True
    deterministics: tuple[str, ...] = ()
    reference_model: str | None = None
    reference_nuts: tuple[tuple[str, Any], ...] = ()

    @property
    def var_names(self) -> list[str]:
        """Compared variables: every free variable (constrained scale), then deterministics."""
        model = self.build()
        return [rv.name for rv in model.free_RVs] + list(self.deterministics)

    @property
    def dim(self) -> int:
        """Number of unconstrained free dimensions."""
        model = self.build()
        point = model.initial_point()
        return int(sum(np.size(point[v.name]) for v in model.value_vars))


REAL_MODELS: dict[str, RealModel] = {
    m.name: m
    for m in (
        RealModel("longley", longley, "Longley regression, raw predictors", "Longley 1967"),
        RealModel("stackloss", stackloss_standardised, "stack loss, standardised", "Brownlee 1965"),
        RealModel(
            "macro-flat", macro_flat, "10-D regression, flat priors", "US macro", proper_prior=False
        ),
        RealModel(
            "anes-logit",
            anes_logit_flat,
            "logistic regression, flat priors",
            "ANES 1996",
            proper_prior=False,
        ),
        RealModel("scales", scales_regression, "sds 1e-3 to 1e3, correlated", "simulated"),
        RealModel(
            "schools-centred",
            eight_schools_centered,
            "eight schools, centred",
            "Rubin 1981",
            reference_model="schools-noncentred",
        ),
        RealModel(
            "schools-noncentred",
            eight_schools_noncentered,
            "eight schools, non-centred",
            "Rubin 1981",
            deterministics=("theta",),
        ),
        RealModel("sunspots-ar5", sunspots_ar, "AR(5), yearly sunspots", "SIDC via statsmodels"),
        RealModel(
            "nile-arma11",
            nile_arma,
            "ARMA(1,1), Nile flow",
            "Cobb 1978",
            # 1000 + 1500 at 0.95 gave 5 divergences and ESS 865 (c and phi: rho -0.99, skewed)
            reference_nuts=(("target_accept", 0.99), ("draws", 5000)),
        ),
        RealModel("garch11", garch, "GARCH(1,1)", "simulated"),
        RealModel(
            "coal-gp",
            coal_gp,
            "latent GP Poisson, coal disasters",
            "Jarrett 1979",
            deterministics=("f",),
            # 1000 + 1500 at 0.95 gave 15 divergences and ESS 609 (3 minutes)
            reference_nuts=(("target_accept", 0.99), ("draws", 3000)),
        ),
        RealModel("faithful-mix", faithful_mixture, "2-normal mixture, ordered", "Old Faithful"),
        RealModel(
            "lynx-hare-ode",
            lynx_hare_ode,
            "Lotka-Volterra ODE in SciPy, no gradient",
            "Hewitt 1921",
            reference_model="lynx-hare-ode-twin",
        ),
        RealModel(
            "nile-kalman",
            nile_kalman,
            "local level, NumPy Kalman filter, no gradient",
            "Cobb 1978",
            reference_model="nile-kalman-twin",
        ),
        RealModel(
            "flu-sir",
            flu_sir,
            "SIR ODE in SciPy, no gradient",
            "BMJ 1978",
            reference_model="flu-sir-twin",
        ),
        RealModel(
            "pk-mm-ode",
            pk_mm_ode,
            "Michaelis-Menten PK ODE in SciPy, heavy right tails, no gradient",
            "simulated",
            reference_model="pk-mm-ode-twin",
        ),
    )
}
"""The validation models by name."""

REFERENCE_ONLY_MODELS: dict[str, RealModel] = {
    m.name: m
    for m in (
        RealModel("lynx-hare-ode-twin", lynx_hare_twin, "twin of lynx-hare-ode", "Hewitt 1921"),
        RealModel("nile-kalman-twin", nile_kalman_twin, "twin of nile-kalman", "Cobb 1978"),
        RealModel("flu-sir-twin", flu_sir_twin, "twin of flu-sir", "BMJ 1978"),
        RealModel(
            "pk-mm-ode-twin",
            pk_mm_twin,
            "twin of pk-mm-ode",
            "simulated",
            # the scan's gradient costs 10 ms in the C backend, 1.2 ms compiled by Numba
            reference_nuts=(("mode", "NUMBA"), ("draws", 3000)),
        ),
    )
}
"""Models that only give other models' references (NUTS runs on them), never suite rows: the
differentiable twins of the black-box models (:mod:`~pymc_kameleon.bench.real.blackbox`)."""

CI_MODELS = ("stackloss", "schools-noncentred", "anes-logit", "faithful-mix")
"""Quick models of the ``ci`` subset."""


def get_real_model(name: str) -> RealModel:
    """Look up a validation model, with an error that lists the valid names.

    Parameters
    ----------
    name : str

    Returns
    -------
    RealModel
    """
    try:
        return REAL_MODELS[name]
    except KeyError:
        raise KeyError(f"unknown model {name!r}; choose one of {', '.join(REAL_MODELS)}") from None


def reference_source(name: str) -> RealModel:
    """The model whose NUTS run gives a validation model's reference.

    Parameters
    ----------
    name : str
        A model of :data:`REAL_MODELS`.

    Returns
    -------
    RealModel
        Its ``reference_model`` (a suite model or one of :data:`REFERENCE_ONLY_MODELS`), or the
        model itself.
    """
    spec = get_real_model(name)
    if spec.reference_model is None:
        return spec
    if spec.reference_model in REFERENCE_ONLY_MODELS:
        return REFERENCE_ONLY_MODELS[spec.reference_model]
    return get_real_model(spec.reference_model)
