"""The coordinates a surrogate learner works in, when a warm-up keeps re-whitening them.

A learner that lives in coordinates ``z = A^{-1}(x - c)`` given by an
:class:`~pymc_kameleon.core.proposals.AffineMap` (e.g. the map of a
:class:`~pymc_kameleon.core.proposals.WhitenedProposal`) must move everything it learned when
the map changes: :class:`LearnerCoordinates` converts states, positions and gradients, and
re-expresses the learner's states in each new map. Without a map the coordinates are the
states' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pymc_kameleon.core.proposals.affine import AffineMap

__all__ = ["LearnerCoordinates"]


class LearnerCoordinates:
    """Kernel coordinates ``z = A^{-1}(x - c)`` of a learner, following a map that may change.

    Parameters
    ----------
    affine : AffineMap, optional
        The initial map (None: the states' own coordinates).

    Attributes
    ----------
    affine : AffineMap or None
    """

    def __init__(self, affine: AffineMap | None = None) -> None:
        self.affine = affine

    def to_kernel(self, x: np.ndarray) -> np.ndarray:
        """Kernel coordinates of the state(s) ``x`` (rows for several).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,) or (n, d)

        Returns
        -------
        numpy.ndarray
        """
        return x if self.affine is None else self.affine.to_kernel(x)

    def to_states(self, z: np.ndarray) -> np.ndarray:
        """The state(s) at kernel coordinates ``z`` (rows for several).

        Parameters
        ----------
        z : numpy.ndarray, shape (d,) or (n, d)

        Returns
        -------
        numpy.ndarray
        """
        return z if self.affine is None else self.affine.to_states(z)

    def gradient_to_states(self, gradient: np.ndarray) -> np.ndarray:
        """A gradient with respect to ``z`` as one with respect to ``x``: ``A^{-T} g``.

        Parameters
        ----------
        gradient : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        return gradient if self.affine is None else self.affine.inverse.T @ gradient

    def follow(self, affine: AffineMap | None, learner: Any) -> bool:
        """Adopt ``affine``; if it is a new map, re-express ``learner``'s states in it.

        Parameters
        ----------
        affine : AffineMap or None
            The map the learner should work in now.
        learner : SurrogateLearner
            Anything with ``change_coordinates(function)``.

        Returns
        -------
        bool
            Whether the coordinates changed (the learner then starts its fit afresh).
        """
        if affine is self.affine:
            return False
        if affine is not None and affine == self.affine:  # one map, two copies (a restored state)
            self.affine = affine
            return False
        old = LearnerCoordinates(self.affine)
        new = LearnerCoordinates(affine)
        learner.change_coordinates(lambda rows: new.to_kernel(old.to_states(rows)))
        self.affine = affine
        return True

    def __eq__(self, other: object) -> bool:
        """Same map (compared element by element), or both without one."""
        if not isinstance(other, LearnerCoordinates):
            return NotImplemented
        if self.affine is None or other.affine is None:
            return self.affine is other.affine
        return self.affine == other.affine

    __hash__ = None  # type: ignore[assignment]
