"""Pictures of what the adaptive steps learned: Kameleon proposals and KMC trajectories.

:func:`plot_proposals` draws the proposal ellipses of a :class:`~pymc_kameleon.KameleonStep` (or
:class:`~pymc_kameleon.AdaptiveMetropolis`) at a few states over the target, with the history
subsample that bends them (Figure 2 of Sejdinovic et al., 2014). :func:`plot_trajectories` draws
a leapfrog trajectory of a :class:`~pymc_kameleon.KMCStep` on its surrogate gradient next to the
one on the true gradient (the idea of Figure 1 of Strathmann et al., 2015).

Every state here is a point of the sampled space: the step's variables raveled and concatenated in
the order of ``step.vars``, on the transformed scale. Plots show two coordinates ``x[i]``,
``x[j]`` of it. Matplotlib is optional: ``pip install "pymc-kameleon[plot]"``.

The figures live in :mod:`pymc_kameleon.plots.proposals` and
:mod:`pymc_kameleon.plots.trajectories`; every read of a step's internal state goes through
``plots/_step_access.py``, one function per read.
"""

from pymc_kameleon.plots.proposals import plot_proposals, proposal_covariance, proposal_ellipse
from pymc_kameleon.plots.trajectories import KMCTrajectories, kmc_trajectories, plot_trajectories

__all__ = [
    "KMCTrajectories",
    "kmc_trajectories",
    "plot_proposals",
    "plot_trajectories",
    "proposal_covariance",
    "proposal_ellipse",
]
