"""LearnerCoordinates: states, positions and gradients between a learner's map and the states."""

from __future__ import annotations

import copy

import numpy as np

from pymc_kameleon.core.surrogates.coordinates import LearnerCoordinates
from pymc_kameleon.core.windowed_covariance import whitening_map

RNG = np.random.default_rng(0)
COV = np.array([[4.0, 1.9], [1.9, 1.0]])
MAP = whitening_map(np.array([10.0, -3.0]), COV)


class RecordingLearner:
    """Stands in for a SurrogateLearner: holds states, records coordinate changes."""

    def __init__(self, states):
        self.states = np.array(states, dtype=float)
        self.changes = 0

    def change_coordinates(self, function):
        self.states = function(self.states)
        self.changes += 1


def test_without_a_map_the_coordinates_are_the_states():
    coordinates = LearnerCoordinates()
    x = RNG.normal(size=2)
    assert coordinates.to_kernel(x) is x and coordinates.to_states(x) is x
    assert coordinates.gradient_to_states(x) is x


def test_states_and_positions_round_trip_through_the_map():
    coordinates = LearnerCoordinates(MAP)
    x = RNG.normal(size=(5, 2))
    np.testing.assert_allclose(coordinates.to_states(coordinates.to_kernel(x)), x, atol=1e-12)
    one = coordinates.to_states(coordinates.to_kernel(x[0]))
    np.testing.assert_allclose(one, x[0], atol=1e-12)


def test_gradients_follow_the_chain_rule():
    coordinates = LearnerCoordinates(MAP)
    a = np.array([0.3, -1.2])

    def f_of_z(z):  # a function of the kernel coordinates, then of the states through them
        return float(np.sin(a @ z))

    x, h = np.array([9.0, -2.0]), 1e-6
    grad_z = np.cos(a @ coordinates.to_kernel(x)) * a
    numeric = [
        (f_of_z(coordinates.to_kernel(x + h * e)) - f_of_z(coordinates.to_kernel(x - h * e)))
        / (2 * h)
        for e in np.eye(2)
    ]
    np.testing.assert_allclose(coordinates.gradient_to_states(grad_z), numeric, rtol=1e-6)


def test_a_new_map_re_expresses_the_learned_states():
    states = RNG.normal(size=(6, 2))
    coordinates = LearnerCoordinates()
    learner = RecordingLearner(states)
    assert coordinates.follow(MAP, learner)
    np.testing.assert_allclose(learner.states, MAP.to_kernel(states))
    second = whitening_map(np.zeros(2), np.eye(2) * 9.0)
    assert coordinates.follow(second, learner)
    np.testing.assert_allclose(learner.states, states / 3.0, atol=1e-12)
    assert learner.changes == 2 and coordinates.affine is second


def test_the_same_map_again_changes_nothing():
    coordinates = LearnerCoordinates(MAP)
    learner = RecordingLearner(RNG.normal(size=(3, 2)))
    assert not coordinates.follow(MAP, learner)
    assert not coordinates.follow(copy.deepcopy(MAP), learner)  # an equal copy, e.g. restored
    assert learner.changes == 0
    assert coordinates == LearnerCoordinates(copy.deepcopy(MAP))
    assert coordinates != LearnerCoordinates()


def test_affine_map_to_states_inverts_to_kernel():
    x = RNG.normal(size=(4, 2))
    np.testing.assert_allclose(MAP.to_states(MAP.to_kernel(x)), x, atol=1e-12)
    np.testing.assert_allclose(MAP.to_states(np.zeros(2)), MAP.shift)
