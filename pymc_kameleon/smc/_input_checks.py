"""Checks :class:`~pymc_kameleon.KameleonSMC` makes before any sampling work.

``pm.sample_smc`` builds the kernel with ``kernel(draws=..., start=None, model=..., random_seed=...,
**kernel_kwargs)``, then each chain draws ``draws`` particles from the prior and moves them.
Two problems of the input only surface later, under another name: a prior PyMC cannot draw from
(PyTensor's "Cannot sample from flat variable", after the functions are compiled) and too few
particles for the number of coordinates (an error blaming the prior draws or the resampling).
These checks run in the kernel's constructor, before anything is compiled, so the message names
the real cause and the fix.
"""

from __future__ import annotations

from typing import Any

from pymc.distributions.continuous import FlatRV, HalfFlatRV
from pymc.distributions.multivariate import ICARRV

from pymc_kameleon._compat import ancestors
from pymc_kameleon.core.checks import check_int

__all__ = [
    "check_draws",
    "check_proper_priors",
    "improper_priors",
    "min_draws",
]

#: Random-variable ops PyMC cannot draw from (improper priors), the distribution that makes
#: each, and a proper replacement. The ops are the same classes in PyMC 5 and 6.
_IMPROPER = (
    (FlatRV, "pm.Flat", 'a wide pm.Normal, e.g. pm.Normal("{name}", 0, 100)'),
    (HalfFlatRV, "pm.HalfFlat", 'pm.HalfNormal, e.g. pm.HalfNormal("{name}", 100)'),
    (ICARRV, "pm.ICAR", "pm.CAR (a proper conditional autoregression, alpha < 1)"),
)
#: most variables named in a message
_MAX_NAMED = 10


def _improper_ops(outputs: list, blockers: set, seen: set) -> list[str]:
    """The improper distributions (``"pm.Flat"``, ...) whose ops generate ``outputs``.

    Walks the graph back from ``outputs``, stopping at ``blockers`` (the model's other free
    variables, which are drawn separately), and into the inner graph of every op that has one
    (``pm.Truncated``, ``pm.CustomDist(dist=...)``, ... are ``OpFromGraph`` subclasses whose
    inner graph draws the base distribution).
    """
    found: list[str] = []
    for variable in ancestors(outputs, blockers=blockers):
        node = variable.owner
        if node is None or variable in blockers or node in seen:
            continue
        seen.add(node)
        for op_type, label, _ in _IMPROPER:
            if isinstance(node.op, op_type) and label not in found:
                found.append(label)
        inner = getattr(node.op, "fgraph", None)
        if inner is not None:
            found += [k for k in _improper_ops(list(inner.outputs), set(), seen) if k not in found]
    return found


def improper_priors(model: Any) -> dict[str, list[str]]:
    """The model's free variables whose prior PyMC cannot draw from, and why.

    A variable counts when its own distribution is improper (``pm.Flat``, ``pm.HalfFlat``,
    ``pm.ICAR``, with any transform, e.g. ``pm.Flat("x", transform=ordered)``) or is built on
    one (``pm.Truncated(pm.Flat.dist(), ...)``, a mixture component, ``pm.CustomDist`` with a
    ``dist`` that draws ``pm.Flat.dist()``, ...). A proper variable whose *parameters* are flat
    variables does not count: those are drawn first, and named themselves.

    Parameters
    ----------
    model : pymc.Model

    Returns
    -------
    dict of str to list of str
        For each such variable (by name, in the model's order), the improper distributions in
        its definition (``"pm.Flat"``, ``"pm.HalfFlat"``, ``"pm.ICAR"``).
    """
    free = list(model.free_RVs)
    found: dict[str, list[str]] = {}
    for rv in free:
        kinds = _improper_ops([rv], {other for other in free if other is not rv}, set())
        if kinds:
            found[rv.name] = kinds
    return found


def check_proper_priors(model: Any, owner: str = "KameleonSMC") -> None:
    """Refuse a model with a free variable PyMC cannot draw from the prior.

    SMC starts from draws of the prior, so ``pm.Flat`` and friends fail there (PyTensor's
    "Cannot sample from flat variable", after compiling); with an ``initval`` PyMC instead
    copies it into every particle. An initial population passed with ``start=`` does not help:
    the tempered targets start at the prior, which an improper prior does not normalise (the
    particles could not be a sample of it, and the evidence has no meaning).

    Raises
    ------
    ValueError
        Naming the variables, their improper distributions and proper replacements, or a step
        method of this package as the alternative.
    """
    found = improper_priors(model)
    if not found:
        return
    names = list(found)
    named = ", ".join(f"{name!r} ({' and '.join(found[name])})" for name in names[:_MAX_NAMED])
    if len(names) > _MAX_NAMED:
        named += f" and {len(names) - _MAX_NAMED} more"
    first: dict[str, str] = {}  # the first variable of each improper distribution, for examples
    for name in names:
        for kind in found[name]:
            first.setdefault(kind, name)
    replace = "; ".join(
        f"{label} with {replacement.format(name=first[label])}"
        for _, label, replacement in _IMPROPER
        if label in first
    )
    raise ValueError(
        f"{owner}: the free variable(s) {named} have an improper prior, which PyMC cannot draw "
        f"from. SMC starts from draws of the prior (pm.sample_smc moves `draws` prior draws to "
        f"the posterior, and its marginal likelihood is relative to the prior), so every free "
        f"variable needs a proper prior. Replace {replace}, on the scale your data allow; or "
        f"keep the priors and sample with pm.sample and a step method of this package, e.g. "
        f"pm.sample(step=pymc_kameleon.KameleonStep())."
    )


def min_draws(dim: int) -> int:
    """Fewest particles the kernel accepts in ``dim`` dimensions: ``2 (dim + 1)``.

    Every stage whitens the population with its covariance, which needs ``d + 1`` distinct
    particles to be non-singular, and moves each half of the population with a proposal built
    on the other half (each half again ``d + 1`` distinct particles at best). Multinomial
    resampling keeps at most about 63 % of the particles distinct (``1 - 1/e``, at equal
    weights), about half at PyMC's default ``threshold=0.5``: with fewer than ``2 (d + 1)``
    particles the first resampling all but surely leaves fewer than ``d + 1``. Measured on a
    Gaussian target, ``1.5 (d + 1)`` particles failed in 20 of 20 runs at d = 5 and 10 of 10
    at d = 20.

    Parameters
    ----------
    dim : int

    Returns
    -------
    int
    """
    return 2 * (int(dim) + 1)


def check_draws(draws: Any, dim: int, owner: str = "KameleonSMC") -> int:
    """Refuse fewer particles than :func:`min_draws` for the ``dim`` sampled coordinates.

    Raises
    ------
    ValueError
        If ``draws`` is below ``2 (dim + 1)``, naming ``draws``, ``d``, the minimum and a
        recommended number (``10 d``, at least 100);
        :class:`~pymc_kameleon.core.checks.ArgumentTypeError` if it is not an integer.
    """
    minimum = min_draws(dim)
    recommended = max(10 * int(dim), 100)
    return check_int(
        "draws",
        draws,
        minimum=minimum,
        hint=(
            f"{owner} samples d = {dim} coordinate{'' if dim == 1 else 's'} (the model's free "
            f"variables, raveled, on the transformed scale) and needs at least 2 (d + 1) = "
            f"{minimum} particles: every stage whitens the population with its covariance, "
            f"which needs d + 1 distinct particles, and moves each half of the population with "
            f"a proposal built on the other half; a resampling keeps only about half of the "
            f"particles distinct, so with fewer than {minimum} the population all but surely "
            f"collapses at the first stage. Use many times d particles, at least 10 d and no "
            f"fewer than 100 (here {recommended}), e.g. pm.sample_smc(draws={recommended}, "
            f"kernel={owner}); pm.sample_smc's default is 2000."
        ),
    )
