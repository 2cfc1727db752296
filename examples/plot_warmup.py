"""
A chain finding its scale: the unit-free warm-up
================================================

``warmup="whitened"`` (see the concepts page on warm-up) lets KameleonStep and
AdaptiveMetropolis start on a posterior of any scale. Here its core object,
:class:`~pymc_kameleon.core.proposals.WhitenedProposal`, drives a plain Metropolis–Hastings loop
(no PyMC, so that every iteration's proposal can be inspected) on a 6-D Gaussian whose standard
deviations go from 0.001 to 1000, with correlations of 0.95 and -0.9, started five standard
deviations away from the mean in every coordinate, with 2000 warm-up iterations (PyMC's
``tune``).

The top panel shows, for each coordinate, the standard deviation of the proposal's move divided
by that coordinate's posterior standard deviation: every coordinate starts with a move of length
1, between 1000 times too short and 1000 times too long. During the start (one coordinate at a
time) each finds its size within a few dozen of its own moves; in the windows the proposal is
built in whitened coordinates and reaches the size of the optimal random walk
(``2.38 / sqrt(d)`` times the sd, dashed) in every direction. The bottom panel shows the chain
itself, standardised: the start moves it toward the posterior, and it is there within the first
windows.
"""

import math

import matplotlib.pyplot as plt
import numpy as np

from pymc_kameleon.core.proposals import (
    WARMUP_STAGES,
    IsotropicRandomWalk,
    Transition,
    WhitenedProposal,
)

DIM, TUNE = 6, 2000
SDS = np.logspace(-3, 3, DIM)
CORRELATION = np.eye(DIM)
CORRELATION[0, 1] = CORRELATION[1, 0] = 0.95
CORRELATION[2, 3] = CORRELATION[3, 2] = -0.9
COV = np.outer(SDS, SDS) * CORRELATION
MEAN = 5.0 * SDS
PRECISION = np.linalg.inv(COV)


def log_target(x):
    r = x - MEAN
    return -0.5 * float(r @ PRECISION @ r)


rng = np.random.default_rng(1)
proposal = WhitenedProposal(IsotropicRandomWalk(DIM))
proposal.plan_warmup(TUNE)
x, logp = np.zeros(DIM), log_target(np.zeros(DIM))
move_sd, states, stages = [], [], []
for t in range(TUNE):
    move_sd.append(np.sqrt(np.diag(proposal.covariance(x))) / SDS)
    x_new, _ = proposal.propose(x, rng)
    logp_new = log_target(x_new)
    accept = math.exp(min(0.0, logp_new - logp))  # both moves are symmetric
    if rng.random() < accept:
        x, logp = x_new, logp_new
    proposal.learn(Transition(x, accept, t, True), rng)
    states.append((x - MEAN) / SDS)
    stages.append(proposal.stats()["warmup_stage"])
proposal.end_warmup()
move_sd, states, stages = np.array(move_sd), np.array(states), np.array(stages)

fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
for i in range(DIM):
    top.semilogy(move_sd[:, i], lw=1, label=f"sd {SDS[i]:.2g}")
    bottom.plot(states[:, i], lw=0.7)
top.axhline(2.38 / math.sqrt(DIM), color="k", ls="--", lw=1)
for ax in (top, bottom):
    for name, code in WARMUP_STAGES.items():
        where = np.flatnonzero(stages == code)
        if where.size and name != "start":
            ax.axvline(where[0], color="grey", lw=0.8, ls=":")
top.set_ylabel("proposal sd / posterior sd")
top.set_title("start (one coordinate) | doubling windows (whitened) | settle")
top.legend(ncol=3, fontsize=8)
bottom.set_ylabel("(x - mean) / sd")
bottom.set_xlabel("warm-up iteration")
bottom.set_ylim(-8, 8)
fig.tight_layout()
plt.show()

print(f"windows used: {proposal.n_windows}")
print("final proposal sd / posterior sd:", np.round(move_sd[-1], 2))
