"""Fixed-capacity chain-history buffer.

Adaptive samplers in this package learn their proposals from the chain's own past. Storing every
state would make memory grow with the number of draws, so :class:`ChainHistory` keeps a
*reservoir*: a uniform random sample, without replacement, of at most ``capacity`` of the states
recorded so far (Vitter's Algorithm R). Every recorded state counts, including the repeats a chain
produces after rejected proposals, so the stored states are weighted by the time the chain spent at
them, as a sample of the target should be.

Each stored state remembers the iteration at which it was recorded, so a subsample can be restricted
to the recent part of the history (for example, the second half of warm-up) and still be uniform
over that part.
"""

from __future__ import annotations

import numpy as np

from pymc_kameleon.core import accelerated
from pymc_kameleon.core.checks import check_int

__all__ = ["PINNED_ITERATION", "ChainHistory"]

#: iteration recorded for states that no ``since`` threshold excludes (e.g. a supplied history)
PINNED_ITERATION = int(np.iinfo(np.int64).max)


class ChainHistory:
    """Bounded, uniform record of the states visited by one chain.

    Parameters
    ----------
    dim : int
        Dimension of the states.
    capacity : int
        Maximum number of states kept in memory. Memory use is ``capacity * (dim + 1) * 8`` bytes
        whatever the number of recorded states.

    Attributes
    ----------
    values : numpy.ndarray, shape (capacity, dim)
        Storage; only the first :attr:`size` rows are meaningful.
    iterations : numpy.ndarray of int64, shape (capacity,)
        Iteration index at which each stored state was recorded.
    n_seen : int
        Number of states recorded so far (stored or not).
    """

    def __init__(self, dim: int, capacity: int) -> None:
        dim = check_int("dim", dim, minimum=1)
        capacity = check_int("capacity", capacity, minimum=2)
        self.values = np.zeros((capacity, dim))
        self.iterations = np.zeros(capacity, dtype=np.int64)
        self.n_seen = 0

    @property
    def capacity(self) -> int:
        """Maximum number of stored states."""
        return self.values.shape[0]

    @property
    def dim(self) -> int:
        """Dimension of the stored states."""
        return self.values.shape[1]

    @property
    def size(self) -> int:
        """Number of states currently stored (``min(n_seen, capacity)``)."""
        return min(self.n_seen, self.capacity)

    def reset(self) -> None:
        """Forget every recorded state (memory is kept allocated)."""
        self.n_seen = 0

    def record(self, x: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Record one chain state.

        While the buffer is not full the state is appended. Afterwards it replaces a uniformly
        chosen stored state with probability ``capacity / (n_seen + 1)``, which keeps the stored
        states a uniform sample of everything recorded.

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
            The state to record (copied).
        iteration : int
            The chain iteration at which ``x`` is the current state.
        rng : numpy.random.Generator
            Source of randomness for the replacement decision (used only once the buffer is full).
        """
        if self.n_seen < self.capacity:
            slot = self.n_seen
        else:
            slot = int(rng.integers(0, self.n_seen + 1))
        if slot < self.capacity:
            self.values[slot] = x
            self.iterations[slot] = iteration
        self.n_seen += 1

    def extend(self, states: np.ndarray, iteration: int) -> None:
        """Append several states at once, all recorded at ``iteration`` (no randomness used).

        Parameters
        ----------
        states : numpy.ndarray, shape (m, dim)
            States to append (copied).
        iteration : int
            Iteration stored with each of them; :data:`PINNED_ITERATION` keeps them eligible for
            every ``since`` threshold of :meth:`subsample`.

        Raises
        ------
        ValueError
            If the states do not fit in the free part of the buffer.
        """
        m = states.shape[0]
        if self.n_seen + m > self.capacity:
            raise ValueError(
                f"cannot append {m} states: {self.capacity - self.size} free slots of "
                f"{self.capacity}; create the history with a larger capacity."
            )
        self.values[self.n_seen : self.n_seen + m] = states
        self.iterations[self.n_seen : self.n_seen + m] = iteration
        self.n_seen += m

    def transform_states(self, function) -> None:
        """Replace every stored state ``x`` by ``function(x)`` (e.g. new coordinates).

        Parameters
        ----------
        function : callable
            Maps an array of shape ``(m, dim)`` of states (rows) to one of the same shape.

        Raises
        ------
        ValueError
            If ``function`` changes the shape.
        """
        size = self.size
        new = np.asarray(function(self.values[:size].copy()), dtype=np.float64)
        if new.shape != (size, self.dim):
            raise ValueError(
                f"transform_states: the function returned shape {new.shape} for states of shape "
                f"{(size, self.dim)}; it must map rows to rows of the same dimension."
            )
        self.values[:size] = new

    def count_since(self, since: int = 0) -> int:
        """Number of stored states recorded at iteration ``since`` or later.

        Parameters
        ----------
        since : int, default 0
            First iteration counted.

        Returns
        -------
        int
        """
        return int(np.count_nonzero(self.iterations[: self.size] >= since))

    def subsample(
        self, n: int, rng: np.random.Generator, since: int = 0, replace: bool = False
    ) -> np.ndarray:
        """Uniform subsample of the stored states.

        Parameters
        ----------
        n : int
            Requested number of states. If fewer are available, all of them are returned.
        rng : numpy.random.Generator
            Source of randomness.
        since : int, default 0
            Only states recorded at iteration ``since`` or later are eligible.
        replace : bool, default False
            Draw with replacement (``n`` independent uniform picks; about five times cheaper for
            large buffers, and what the KAMH authors did). Without replacement, all eligible
            states are returned when there are fewer than ``n``.

        Returns
        -------
        numpy.ndarray, shape (m, dim)
            A new array with ``m = min(n, available)`` rows.
        """
        size = self.size
        if replace and accelerated.HAVE_NUMBA:
            # compiled loops; the same picks as the NumPy code below, from the same uniforms
            if since > 0:
                eligible = accelerated.eligible_indices(self.iterations, size, int(since))
            else:  # as below: every stored state, whatever its (possibly negative) iteration
                eligible = np.arange(size)
            if eligible.size == 0:
                return np.empty((0, self.dim))
            return accelerated.take_picked_rows(self.values, eligible, rng.random(n))
        if since > 0:
            eligible = np.flatnonzero(self.iterations[:size] >= since)
        else:
            eligible = np.arange(size)
        if replace and eligible.size > 0:
            # floor(U * m) is uniform on {0..m-1} and twice as fast as rng.integers here
            picks = (rng.random(n) * eligible.size).astype(np.intp)
            return np.take(self.values, eligible[picks], axis=0)
        if eligible.size > n:
            eligible = rng.choice(eligible, size=n, replace=False)
        return np.take(self.values, eligible, axis=0)

    def __eq__(self, other: object) -> bool:
        """Compare the recorded content (used by PyMC's sampling-state machinery)."""
        if not isinstance(other, ChainHistory):
            return NotImplemented
        size = self.size
        return (
            self.n_seen == other.n_seen
            and self.values.shape == other.values.shape
            and np.array_equal(self.values[:size], other.values[:size])
            and np.array_equal(self.iterations[:size], other.iterations[:size])
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """Short description."""
        return f"ChainHistory(dim={self.dim}, capacity={self.capacity}, n_seen={self.n_seen})"
