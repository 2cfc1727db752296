"""From SMC particles to the ``initial_history`` of a step: the pilot pipeline."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytensor

from pymc_kameleon._compat import get_value_vars_from_user_vars, modelcontext, posterior_dataset

__all__ = ["initial_history_from_smc"]


def initial_history_from_smc(idata: Any, vars: Any = None, model: Any = None) -> np.ndarray:
    """The final particles of ``pm.sample_smc`` as ``initial_history`` for our steps.

    ``pm.sample_smc`` (with :class:`~pymc_kameleon.KameleonSMC` or PyMC's kernels) returns the
    final population in the variables' own (constrained) values; ``initial_history`` wants the
    values a step samples: each variable on its transformed (unconstrained) scale, raveled and
    concatenated in the order of the step's variables. This function makes that array::

        with model:
            smc = pm.sample_smc(draws=1000, kernel=KameleonSMC, chains=2)
            history = initial_history_from_smc(smc)
            idata = pm.sample(step=KMCStep(initial_history=history))

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        The result of ``pm.sample_smc``; every chain's particles are used (as rows).
    vars : list of PyMC variables, optional
        The step's ``vars`` (random variables or their value variables), in the same order;
        defaults to every continuous free variable of the model, the steps' own default.
    model : pm.Model, optional
        Defaults to the model in context.

    Returns
    -------
    numpy.ndarray, shape (chains * draws, d)

    Raises
    ------
    TypeError
        If ``idata`` is not sampling output.
    ValueError
        If a variable is missing from ``idata["posterior"]``.
    """
    posterior = posterior_dataset(idata, "posterior", reader="initial_history_from_smc")
    model = modelcontext(model)
    value_vars = (
        model.continuous_value_vars if vars is None
        else get_value_vars_from_user_vars(vars, model)
    )  # fmt: skip
    free_rvs = list(model.free_RVs)
    missing = [rv.name for rv in free_rvs if rv.name not in posterior]
    if missing:
        raise ValueError(
            f"`idata['posterior']` has no draws of {missing}; pass the result of pm.sample_smc "
            "on this same model."
        )
    outputs = [_sampled_value(model, model.values_to_rvs[v]) for v in value_vars]
    to_sampled = pytensor.function(free_rvs, outputs, on_unused_input="ignore")
    columns = {rv.name: _rows(posterior[rv.name]) for rv in free_rvs}
    n = next(iter(columns.values())).shape[0]
    rows = []
    for i in range(n):
        values = to_sampled(*[columns[rv.name][i].astype(rv.dtype) for rv in free_rvs])
        rows.append(np.concatenate([np.ravel(v) for v in values]))
    return np.asarray(rows, dtype=float)


def _rows(draws: Any) -> np.ndarray:
    """Chains and draws stacked into one leading axis."""
    values = np.asarray(draws.values)
    return values.reshape((-1, *values.shape[2:]))


def _sampled_value(model: Any, rv: Any) -> Any:
    """The graph of the value a step samples for ``rv``: its transform's forward map, if any."""
    transform = model.rvs_to_transforms.get(rv)
    if transform is None:
        return rv
    return transform.forward(rv, *rv.owner.inputs)
