"""Former home of the Hamiltonian primitives, now :mod:`pymc_kameleon.core.hamiltonian`.

Kept so that ``from pymc_kameleon.core.leapfrog import leapfrog`` keeps working; new code should
import from :mod:`pymc_kameleon.core.hamiltonian`.
"""

from pymc_kameleon.core.hamiltonian import (
    LeapfrogResult,
    draw_trajectory_length,
    hamiltonian_log_accept,
    kinetic_energy,
    leapfrog,
    leapfrog_path,
    sample_momentum,
)

__all__ = [
    "LeapfrogResult",
    "draw_trajectory_length",
    "hamiltonian_log_accept",
    "kinetic_energy",
    "leapfrog",
    "leapfrog_path",
    "sample_momentum",
]
