"""The skew-normal ABC posterior with its exact likelihood, as a differentiable PyMC model.

:func:`~pymc_kameleon.targets.pseudo_marginal_models.abc_skew_normal_model` gives the samplers
of this package only an unbiased *estimate* of the ABC likelihood. Here the same likelihood is
computed by the one-dimensional quadrature of :mod:`pymc_kameleon.targets.abc_exact`, written
as a PyTensor graph, so NUTS can sample the very posterior that the pseudo-marginal chains
target (``epsilon = 0.55``) or the exact posterior given the summary (``epsilon = 0``): the
reference answers of the ABC experiment.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from pymc_kameleon.targets.abc_exact import ABCQuadrature, abc_likelihood_quadrature
from pymc_kameleon.targets.abc_skew_normal import ABC_EPSILON, ABC_PRIOR_VARIANCE

__all__ = ["abc_log_likelihood_graph", "abc_tractable_model"]


def abc_log_likelihood_graph(theta: pt.TensorVariable, quad: ABCQuadrature) -> pt.TensorVariable:
    """``log p_eps(s_obs | theta)`` as a PyTensor scalar, the formula of :class:`ABCQuadrature`.

    Parameters
    ----------
    theta : pytensor.tensor.TensorVariable
        Location vector of shape ``(d,)``.
    quad : ABCQuadrature
        Precomputed quadrature (:func:`~pymc_kameleon.targets.abc_exact.abc_likelihood_quadrature`).

    Returns
    -------
    pytensor.tensor.TensorVariable
        Scalar log-likelihood, differentiable in ``theta``.
    """
    u = quad.white_delta
    u_sq = float(u @ u)
    z = pt.dot(quad.whitener, pt.as_tensor_variable(quad.s_obs) - theta)
    m = pt.dot(z, u) / u_sq
    q = pt.sum((z - m * u) ** 2)
    log_terms = quad.log_weights - 0.5 * u_sq * (quad.t_grid - m) ** 2
    return pt.logsumexp(log_terms) - 0.5 * q + quad.log_norm


def abc_tractable_model(epsilon: float = ABC_EPSILON, name: str = "theta") -> pm.Model:
    """The ABC posterior of the 10-D skew-normal location with its exact likelihood.

    Prior ``N(0, 25 I)`` and the likelihood ``p_eps(s_obs | theta)`` of the observed summary
    (:func:`~pymc_kameleon.targets.abc_exact.abc_log_likelihood_exact`) as a ``pm.Potential``
    named ``"loglike"``. ``epsilon = 0.55`` is the posterior that the pseudo-marginal chains on
    :func:`~pymc_kameleon.targets.pseudo_marginal_models.abc_skew_normal_model` target;
    ``epsilon = 0`` is the exact posterior given the summary. Differentiable: sample it with
    NUTS.

    Parameters
    ----------
    epsilon : float, default 0.55
        ABC kernel bandwidth; 0 for no ABC kernel.
    name : str, default "theta"
        Name of the free variable (shape ``(10,)``).

    Returns
    -------
    pymc.Model

    Raises
    ------
    ValueError
        If ``epsilon`` is negative or not finite.
    """
    quad = abc_likelihood_quadrature(epsilon)
    with pm.Model() as model:
        theta = pm.Normal(name, 0.0, np.sqrt(ABC_PRIOR_VARIANCE), shape=quad.s_obs.size)
        pm.Potential("loglike", abc_log_likelihood_graph(theta, quad))
    return model
