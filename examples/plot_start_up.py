"""
Starting where the posterior is: the start-up on a ridge
========================================================

A chain started far from a strongly correlated posterior has to random-walk to it and learn its
covariance on the way. On a ridge like the Longley regression's (correlation 0.99995 between a
coordinate with standard deviation 900 000 and one with standard deviation 2, mode at
-3 400 000) a random walk gains a few times in scale per covariance window and never gets
there within a warm-up. The start-up (``start_up=True``, the default of the steps with the
whitened warm-up) first climbs to the mode with Newton steps on finite differences, takes the
curvature there, checks that the posterior drops like that Gaussian along its principal axes,
and starts the chain at an overdispersed draw of it, with the warm-up's first whitening map its
covariance.

Here both chains use the same core objects as the steps
(:class:`~pymc_kameleon.core.proposals.WhitenedProposal` around an isotropic random walk, in a
plain Metropolis loop, 3000 warm-up iterations), started at 0. The x-axis counts log-density
evaluations, so the start-up's climb (where the blue line begins) is paid for.
"""

import math
import os

import matplotlib.pyplot as plt
import numpy as np

from pymc_kameleon.core.proposals import IsotropicRandomWalk, Transition, WhitenedProposal
from pymc_kameleon.core.start_up import gaussian_start_up

TUNE = max(300, int(3000 * float(os.environ.get("KAMELEON_EXAMPLE_SCALE", "1"))))
RHO = 0.99995
SDS = np.array([9e5, 2.0])
COV = np.array([[1.0, RHO], [RHO, 1.0]]) * np.outer(SDS, SDS)
MEAN = np.array([-3.4e6, 1.5])
PRECISION = np.linalg.inv(COV)


def log_target(x):
    r = x - MEAN
    return -0.5 * float(r @ PRECISION @ r)


def warm_up(rng, start_up):
    """A warm-up from 0; returns the evaluations so far and the standardised first coordinate."""
    proposal = WhitenedProposal(IsotropicRandomWalk(2))
    proposal.plan_warmup(TUNE)
    x = np.zeros(2)
    logp, spent = log_target(x), 1
    if start_up:
        result = gaussian_start_up(log_target, x, TUNE // 2, rng)
        spent += result.n_evals
        if result.uses_gaussian:
            x, logp = result.point, result.log_density
            proposal.start_from(result.mean, result.covariance)
    evals, path = [spent], [(x[0] - MEAN[0]) / SDS[0]]
    for t in range(TUNE):
        x_new, _ = proposal.propose(x, rng)
        logp_new = log_target(x_new)
        accept = math.exp(min(0.0, logp_new - logp))  # the moves are symmetric
        if rng.random() < accept:
            x, logp = x_new, logp_new
        proposal.learn(Transition(x, accept, t, True), rng)
        spent += 1
        evals.append(spent)
        path.append((x[0] - MEAN[0]) / SDS[0])
    return np.array(evals), np.array(path)


fig, ax = plt.subplots(figsize=(8, 4))
paths = {}
for start_up, colour, label in [
    (False, "tab:orange", "ordinary warm-up from 0"),
    (True, "tab:blue", "start-up, then the warm-up"),
]:
    evals, path = warm_up(np.random.default_rng(2), start_up)
    paths[start_up] = path
    if start_up:
        label += f" ({evals[0]} evaluations for the start-up)"
    ax.plot(evals, path, color=colour, lw=0.8, label=label)
ax.axhspan(-2, 2, color="grey", alpha=0.2, label="posterior, ±2 sd")
ax.set_xlabel("log-density evaluations")
ax.set_ylabel("(x[0] - mean) / sd")
ax.set_ylim(-6, 6)
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()
