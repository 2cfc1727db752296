"""The mathematics of MCMC PCA-Kameleon (KAMH paper, appendix C): a mixture of rank-one moves.

The centred kernel matrix ``H K H`` of a history subsample ``z_1..z_n`` has leading eigenvectors
``a_1..a_m`` (the RKHS's principal directions of the subsample). Mapped back to the state space
through the kernel gradients at ``y`` they give one direction per component,
``b_j(y) = M_y H a_j``, and the proposal at ``y`` picks component ``j`` with probability ``w_j``
and draws ``x ~ N(y, gamma^2 I + nu_j^2 b_j b_j^T)``. Its density is the mixture over ``j``
(the appendix's Proposition 3), so the reverse density is the same mixture built at ``x``: the
Metropolis-Hastings ratio stays exact. Each component is a rank-one update of ``gamma^2 I``, so
its log-density needs ``O(d)`` once ``b_j`` is known (Sherman-Morrison and the matrix
determinant lemma), and no ``d x d`` matrix is ever formed.

:class:`PCAKameleonProposal` learns ``a_j``, ``w_j`` (proportional to the eigenvalues) and
``nu_j`` in warm-up from the chain history, as :class:`KameleonProposal` learns its subsample.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import eigh
from scipy.spatial.distance import cdist

from pymc_kameleon.core.adaptation import ScaleAdapter, optimal_rw_scale
from pymc_kameleon.core.kernels import GaussianKernel, Kernel
from pymc_kameleon.core.proposals.kameleon import KameleonProposal, centered_gradient_matrix
from pymc_kameleon.core.proposals.protocol import Transition

__all__ = [
    "PCAKameleonProposal",
    "direction_vectors",
    "draw_rank_one_mixture",
    "principal_directions",
    "rank_one_mixture_logpdf",
]

_LOG_2PI = float(np.log(2.0 * np.pi))


def principal_directions(
    history: np.ndarray, kernel: Kernel, n_components: int
) -> tuple[np.ndarray, np.ndarray]:
    """Leading eigenpairs of the centred kernel matrix ``H K H`` of a subsample.

    Parameters
    ----------
    history : numpy.ndarray, shape (n, d)
        The subsample ``z_1..z_n``.
    kernel : Kernel
    n_components : int
        ``m``, at most ``n - 1`` (``H K H`` has rank at most ``n - 1``).

    Returns
    -------
    vectors : numpy.ndarray, shape (n, m)
        Unit eigenvectors ``a_j`` as columns, largest eigenvalue first.
    values : numpy.ndarray, shape (m,)
        Their eigenvalues ``lambda_j >= 0`` (rounding below zero is clipped).
    """
    history = np.asarray(history, dtype=float)
    n = history.shape[0]
    if not 1 <= n_components <= n - 1:
        raise ValueError(
            f"n_components must be between 1 and n - 1 = {n - 1} for {n} history points; "
            f"got {n_components}."
        )
    if type(kernel) is GaussianKernel:
        gram = np.exp(cdist(history, history, "sqeuclidean") * (-0.5 / kernel.bandwidth**2))
    else:
        gram = np.vstack([kernel.value(z, history) for z in history])
    centred = gram - gram.mean(axis=0) - gram.mean(axis=1, keepdims=True) + gram.mean()
    # only the m leading pairs: LAPACK's subset driver, far cheaper than all n for m << n
    values, vectors = eigh((centred + centred.T) / 2.0, subset_by_index=[n - n_components, n - 1])
    order = np.argsort(values)[::-1]
    return vectors[:, order], np.clip(values[order], 0.0, None)


def direction_vectors(
    y: np.ndarray, history: np.ndarray, kernel: Kernel, vectors: np.ndarray
) -> np.ndarray:
    """``b_j(y) = M_y H a_j`` for every component: the principal directions seen from ``y``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
    history : numpy.ndarray, shape (n, d)
    kernel : Kernel
    vectors : numpy.ndarray, shape (n, m)
        The ``a_j`` of :func:`principal_directions`.

    Returns
    -------
    numpy.ndarray, shape (d, m)
    """
    return centered_gradient_matrix(np.asarray(y, dtype=float), history, kernel).T @ vectors


def rank_one_mixture_logpdf(
    x: np.ndarray,
    center: np.ndarray,
    directions: np.ndarray,
    log_weights: np.ndarray,
    gamma: float,
    scales: np.ndarray,
) -> float:
    """``log sum_j w_j N(x; center, gamma^2 I + nu_j^2 b_j b_j^T)`` in ``O(d m)``.

    Parameters
    ----------
    x, center : numpy.ndarray, shape (d,)
    directions : numpy.ndarray, shape (d, m)
        The ``b_j`` as columns.
    log_weights : numpy.ndarray, shape (m,)
        ``log w_j``, summing (in probability) to one.
    gamma : float
        Standard deviation of the isotropic part, > 0.
    scales : numpy.ndarray, shape (m,)
        ``nu_j``.

    Returns
    -------
    float
    """
    r = np.asarray(x, dtype=float) - np.asarray(center, dtype=float)
    d = r.shape[0]
    g2 = float(gamma) ** 2
    nu2 = np.asarray(scales, dtype=float) ** 2
    b_norm2 = np.einsum("ij,ij->j", directions, directions)
    along = directions.T @ r  # b_j^T r
    denominator = g2 + nu2 * b_norm2  # 1 + nu^2 |b|^2 / gamma^2, times gamma^2
    # Sherman-Morrison for the quadratic form, the determinant lemma for the log-determinant
    quadratic = (r @ r - nu2 * along**2 / denominator) / g2
    log_det = d * np.log(g2) + np.log(denominator / g2)
    terms = np.asarray(log_weights, dtype=float) - 0.5 * (d * _LOG_2PI + log_det + quadratic)
    top = float(np.max(terms))  # log-sum-exp by hand: SciPy's costs more than all the rest here
    return top + float(np.log(np.sum(np.exp(terms - top))))


def draw_rank_one_mixture(
    center: np.ndarray,
    directions: np.ndarray,
    weights: np.ndarray,
    gamma: float,
    scales: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, int]:
    """One draw of the mixture: a component ``j ~ w``, then ``center + gamma e + nu_j b_j eta``.

    Parameters
    ----------
    center : numpy.ndarray, shape (d,)
    directions : numpy.ndarray, shape (d, m)
    weights : numpy.ndarray, shape (m,)
        Probabilities ``w_j``.
    gamma : float
    scales : numpy.ndarray, shape (m,)
    rng : numpy.random.Generator

    Returns
    -------
    x : numpy.ndarray, shape (d,)
    component : int
    """
    j = int(rng.choice(len(weights), p=np.asarray(weights, dtype=float)))
    d = center.shape[0]
    x = (
        center
        + gamma * rng.standard_normal(d)
        + scales[j] * directions[:, j] * rng.standard_normal()
    )
    return x, j


#: warm-up iterations between two eigendecompositions of ``H K H`` (besides the bandwidth's)
DEFAULT_REFRESH_INTERVAL = 50
#: history points the directions' lengths are averaged over when a scale is matched
_MATCH_POINTS = 20


class PCAKameleonProposal(KameleonProposal):
    r"""MCMC PCA-Kameleon: a mixture of rank-one moves along the kernel's principal directions.

    At ``y`` the proposal picks direction ``j`` with probability ``w_j`` (proportional to the
    eigenvalue ``lambda_j`` of ``H K H``) and draws from
    ``N(y, gamma^2 I + nu_j^2 b_j b_j^T)`` with ``b_j = M_y H a_j``; the log-density is the
    mixture over ``j`` (:func:`rank_one_mixture_logpdf`), so the reverse density needs the
    directions at the candidate, ``O(n d m)``, and no ``d x d`` matrix.

    It learns as :class:`~pymc_kameleon.core.proposals.KameleonProposal` (the history, its
    subsample, the median bandwidth, the affine map), with two differences: the principal
    directions are recomputed at most every ``refresh_interval`` warm-up iterations (and at every
    re-estimate of the bandwidth or change of map), since an eigendecomposition of the ``n x n``
    matrix costs ``O(n^2 m)`` or more; and each direction has its own scale ``nu_j^2``, learned by
    Robbins–Monro from the acceptance of its own moves. When the directions are first used (or
    the bandwidth or the map changes) ``nu_j^2`` is set so that the move along ``b_j`` has the
    optimal one-dimensional random-walk variance ``2.38^2`` times the subsample's variance along
    ``b_j``, with ``|b_j|`` averaged over up to 20 subsample points.

    Parameters
    ----------
    dim : int
    n_components : int, default 10
        ``m``, the number of principal directions (at most ``n_history - 1`` are used, and only
        those with a positive eigenvalue).
    refresh_interval : int, default 50
        Warm-up iterations between two recomputations of the directions.
    **kwargs
        As for :class:`~pymc_kameleon.core.proposals.KameleonProposal`; ``nu2`` is then the
        initial ``nu_j^2`` of every direction.

    Attributes
    ----------
    vectors : numpy.ndarray of shape (n, m) or None
        The eigenvectors ``a_j`` in use (None before the history is used).
    weights : numpy.ndarray of shape (m,) or None
        ``w_j``.
    scales : list of ScaleAdapter
        The learned ``log nu_j^2``.
    chosen : int
        The direction of the last proposal (-1: the plain ``gamma^2 I`` walk, before the history
        is used).
    """

    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {
        **KameleonProposal.stats_dtypes,
        "direction": (np.int64, []),
    }

    def __init__(
        self,
        dim: int,
        *,
        n_components: int = 10,
        refresh_interval: int = DEFAULT_REFRESH_INTERVAL,
        **kwargs: Any,
    ) -> None:
        if int(n_components) < 1:
            raise ValueError(f"n_components must be at least 1, got {n_components}.")
        self.n_components = int(n_components)
        self.refresh_interval = max(1, int(refresh_interval))
        super().__init__(dim, **kwargs)

    def reset(self) -> None:
        """Forget the directions and their scales, as :meth:`KameleonProposal.reset`."""
        initial = self.scale.initial_log_scale
        self.scales = [ScaleAdapter(initial) for _ in range(self.n_components)]
        self.vectors: np.ndarray | None = None
        self.weights: np.ndarray | None = None
        self.chosen = -1
        self.last_refresh = -math.inf
        self._directions: list[tuple[np.ndarray, np.ndarray]] = []
        super().reset()

    # ---------------------------------------------------------------------------------------
    @property
    def scaling(self) -> float:
        """``sum_j w_j nu_j^2`` (the single scale before the directions exist)."""
        if self.weights is None:
            return self.scale.current
        return float(self.weights @ self.nu2)

    @property
    def nu2(self) -> np.ndarray:
        """The ``nu_j^2`` of the directions in use."""
        return np.array([s.current for s in self.scales[: self._in_use()]])

    def _in_use(self) -> int:
        return 0 if self.weights is None else self.weights.shape[0]

    def forget_covariance(self) -> None:
        """Drop the cached directions (and the base class's factors)."""
        super().forget_covariance()
        self._directions = []

    def directions_at(self, u: np.ndarray) -> np.ndarray | None:
        """``b_j(u)`` as columns (cached at the last two points); None before the history.

        Parameters
        ----------
        u : numpy.ndarray, shape (d,)
            A point in the proposal's coordinates.

        Returns
        -------
        numpy.ndarray of shape (d, m), or None
        """
        if self.vectors is None:
            return None
        for point, directions in self._directions:
            if point is u or np.array_equal(point, u):
                return directions
        directions = direction_vectors(u, self.basis, self.kernel, self.vectors)
        self._directions = [*self._directions[-1:], (u, directions)]
        return directions

    # ---------------------------------------------------------------------------------------
    def _refresh_wanted(self, t: int) -> bool:
        if not self.kernel_local:  # out of use: as the full move, no refresh
            return False
        first = self.z is None or self.map_changed
        return first or self._bandwidth_due(t) or t - self.last_refresh >= self.refresh_interval

    def _refresh_subsample(self, x: np.ndarray, t: int, rng: np.random.Generator) -> None:
        first = self.z is None or self.map_changed
        rematch = (first and self.auto_nu2) or self._bandwidth_due(t)
        self._draw_subsample(t, rng)
        self._fit_directions(rematch)
        self.last_refresh = t

    def _fit_directions(self, rematch: bool) -> None:
        """Eigenvectors and weights on the current basis; rematch the scales if asked."""
        self.forget_covariance()
        m = min(self.n_components, self.basis.shape[0] - 1)
        if m < 1:
            self.vectors = self.weights = None
            return
        vectors, values = principal_directions(self.basis, self.kernel, m)
        keep = values > 1e-12 * max(values[0], 0.0) if values[0] > 0.0 else values > 0.0
        if not keep.any():
            self.vectors = self.weights = None
            return
        self.vectors, values = vectors[:, keep], values[keep]
        self.weights = values / values.sum()
        if rematch:
            self._match_scales()

    def _match_scales(self) -> None:
        """``nu_j^2 |b_j|^2 = 2.38^2 var_j``, ``var_j`` the subsample's variance along ``b_j``."""
        step = max(1, self.basis.shape[0] // _MATCH_POINTS)
        points = self.basis[::step][:_MATCH_POINTS]
        m = self.weights.shape[0]
        lengths2, spread, seen = np.zeros(m), np.zeros(m), np.zeros(m)
        centred = self.basis - self.basis.mean(axis=0)
        for u in points:
            b = direction_vectors(u, self.basis, self.kernel, self.vectors)
            norms2 = np.einsum("ij,ij->j", b, b)
            good = norms2 > 0.0  # far from every history point a direction can vanish
            lengths2 += norms2
            spread[good] += np.mean((centred @ b[:, good]) ** 2, axis=0) / norms2[good]
            seen += good
        for j in range(m):
            if seen[j] > 0 and spread[j] > 0.0 and math.isfinite(spread[j]):
                target = optimal_rw_scale(1) * spread[j] / seen[j]
                self.scales[j].restart(math.log(target / (lengths2[j] / len(points))))

    # ---------------------------------------------------------------------------------------
    def draw_move(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """A direction by weight, then ``gamma e + nu_j b_j eta``; the mixture log-density.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point, in the proposal's coordinates.
        rng : numpy.random.Generator

        Returns
        -------
        move : numpy.ndarray, shape (d,)
        log_q : float
        """
        directions = self.directions_at(x)
        if directions is None:
            self.chosen = -1
            move = self.gamma * rng.standard_normal(self.dim)
            return move, _isotropic_logpdf(move, self.gamma)
        nu = np.sqrt(self.nu2)
        k = int(np.searchsorted(np.cumsum(self.weights), rng.random(), side="right"))
        self.chosen = min(k, self.weights.shape[0] - 1)
        move = self.gamma * rng.standard_normal(self.dim)
        move += nu[self.chosen] * directions[:, self.chosen] * rng.standard_normal()
        log_q = rank_one_mixture_logpdf(
            x + move, x, directions, np.log(self.weights), self.gamma, nu
        )
        return move, log_q

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``log q(to | frm)``: the rank-one mixture built at ``frm``.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
            In the states' coordinates (``-log|det A|`` included with a map).
        """
        u_to, u_frm = self.to_kernel(to), self.to_kernel(frm)
        directions = self.directions_at(u_frm)
        if directions is None:
            log_q = _isotropic_logpdf(np.asarray(u_to - u_frm, dtype=float), self.gamma)
        else:
            log_q = rank_one_mixture_logpdf(
                u_to, u_frm, directions, np.log(self.weights), self.gamma, np.sqrt(self.nu2)
            )
        return log_q if self.affine is None else log_q - self.affine.log_det

    def propose_many(
        self, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`propose` for every row (the directions differ per row).

        Parameters
        ----------
        x : numpy.ndarray, shape (n, d)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (n, d)
        log_q_forward : numpy.ndarray, shape (n,)
        """
        if self.z is None and self.initial_states is not None:
            self._refresh_subsample(x[0], 0, rng)
        pairs = [self.propose(row, rng) for row in np.asarray(x)]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    def log_density_many(self, to: np.ndarray, frm: np.ndarray) -> np.ndarray:
        """:meth:`log_density` for every row.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        return np.array([self.log_density(a, b) for a, b in zip(to, frm, strict=True)])

    def covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance of the mixture at ``x``: ``gamma^2 I + sum_j w_j nu_j^2 b_j b_j^T``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d, d)
            In the states' coordinates.
        """
        u = self.to_kernel(np.asarray(x, dtype=float))
        cov = self.gamma**2 * np.eye(self.dim)
        if self.vectors is not None:
            cov += self.learned_covariance(u) * self.scaling
        if self.affine is not None:
            cov = self.affine.matrix @ cov @ self.affine.matrix.T
        return cov

    def learned_covariance(self, x: np.ndarray) -> np.ndarray:
        """``sum_j w_j nu_j^2 b_j b_j^T / scaling`` at ``x`` (kernel coordinates), for plots.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        directions = self.directions_at(x)
        if directions is None:
            return np.zeros((self.dim, self.dim))
        return (directions * (self.weights * self.nu2 / self.scaling)) @ directions.T

    # ---------------------------------------------------------------------------------------
    def update_scale(self, transition: Transition) -> None:
        """Robbins–Monro step of the scale of the direction that made the move.

        Parameters
        ----------
        transition : Transition
        """
        if self.learn_scale and transition.accept_prob is not None and self.chosen >= 0:
            target = self.target_accept * transition.target_factor
            self.scales[self.chosen].update(transition.accept_prob, target)

    def end_warmup(self) -> None:
        """Fix every direction's scale at its weighted warm-up average."""
        if self.learn_scale:
            for scale in self.scales:
                scale.settle()

    def use_states(
        self, states: np.ndarray, rng: np.random.Generator, nu2_factor: float = 1.0
    ) -> None:
        """As :meth:`KameleonProposal.use_states`, with the directions fitted and matched.

        Parameters
        ----------
        states : numpy.ndarray, shape (n, dim)
        rng : numpy.random.Generator
        nu2_factor : float, default 1.0
        """
        super().use_states(states, rng, nu2_factor)
        self._fit_directions(rematch=True)
        for scale in self.scales:
            scale.restart(scale.log_scale + math.log(nu2_factor))

    def stats(self) -> dict[str, Any]:
        """The Kameleon stats (``scaling`` is ``sum_j w_j nu_j^2``) and ``direction``.

        Returns
        -------
        dict of str to object
        """
        return {**super().stats(), "direction": self.chosen}


def _isotropic_logpdf(move: np.ndarray, gamma: float) -> float:
    d = move.shape[0]
    return float(-0.5 * (d * (_LOG_2PI + 2.0 * math.log(gamma)) + move @ move / gamma**2))
