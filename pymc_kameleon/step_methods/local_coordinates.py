"""KMCStep's ``coordinates="local"``: the surrogate in coordinates of unit *local* width.

The whitened warm-up gives the surrogate coordinates in which the posterior's global covariance
is the identity. On a curved posterior that leaves the thin direction far thinner than the
others (issue 31). With ``coordinates="local"`` the chain also takes a forward-difference score
every ``4 d`` warm-up iterations (``d`` evaluations each, counted in ``logp_evals``: a quarter
of an evaluation per iteration), and whenever the whitening map changes the surrogate moves to
that map composed with the local-width map of the scores
(:class:`~pymc_kameleon.core.local_precision.LocalWidthScores`). With ``initial_history`` the
scores are taken once, at the first iteration, at states of the pilot. A noisy log-density
estimate has no usable differences: pseudo-marginal models keep the global coordinates.
"""

from __future__ import annotations

import numpy as np

from pymc_kameleon.core.local_precision import LocalWidthScores
from pymc_kameleon.core.proposals.affine import AffineMap

__all__ = ["COORDINATES", "kernel_affine", "new_local_scores", "record_local_score", "score_pilot"]

#: KMCStep's ``coordinates`` choices, and what each means
COORDINATES = {
    "global": "the surrogate lives in the whitened warm-up's coordinates (unit global covariance)",
    "local": "the surrogate lives in coordinates of unit average local precision, from "
    "finite-difference scores taken during warm-up (d evaluations every 4 d iterations)",
}
#: iterations between scores, per dimension
SCORE_INTERVAL_PER_DIM = 4


def new_local_scores(step) -> LocalWidthScores | None:
    """The score collector of a chain's warm-up, or None where the coordinates stay global."""
    if step.coordinates_choice != "local" or step.warmup != "whitened" or step.is_pseudo_marginal:
        return None
    return LocalWidthScores(SCORE_INTERVAL_PER_DIM * step.dim)


def kernel_affine(step) -> AffineMap | None:
    """The map the surrogate should live in now (the whitening map, or it made local)."""
    affine = step.explore.affine
    scores = getattr(step, "local_scores", None)
    return affine if scores is None else scores.kernel_map(affine)


def _log_density(step):
    compiled, dtype = step.compiled_logp, step.x_current.dtype
    # the compiled function trusts its input: hand it the model's dtype
    return lambda x: float(compiled(np.asarray(x, dtype=dtype)))


def record_local_score(step) -> int:
    """Take the iteration's score if due (warm-up, a whitening map in place); the evaluations."""
    scores = getattr(step, "local_scores", None)
    affine = step.explore.affine
    if scores is None or not step.tune or affine is None or step.explore.stage == "start":
        return 0
    if step.initial_history is not None:  # a pilot's map never changes: its scores suffice
        return 0
    return scores.record(
        _log_density(step), step.x_current, step.logp_current, affine, step.iteration
    )


def score_pilot(step) -> int:
    """With ``initial_history``: scores at pilot states, once (as many as a warm-up takes)."""
    scores = getattr(step, "local_scores", None)
    pilot = step.initial_history
    if scores is None or pilot is None or scores.scores or step.explore.affine is None:
        return 0
    length = step.warmup_length or 0
    count = min(pilot.shape[0], max(2 * step.dim, length // scores.every))
    # evenly spread over the pilot, which may be in time order
    rows = pilot[np.linspace(0, pilot.shape[0] - 1, count).astype(int)]
    spent = scores.record_states(_log_density(step), rows, step.explore.affine)
    step.coordinates.follow(kernel_affine(step), step.learner)
    return spent
