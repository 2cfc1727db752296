"""Kernel sequential Monte Carlo: :class:`KameleonSMC` for ``pm.sample_smc``, and its pipeline."""

from pymc_kameleon.smc.history import initial_history_from_smc
from pymc_kameleon.smc.kameleon_smc import KameleonSMC
from pymc_kameleon.smc.results import final_log_marginal_likelihood, stage_stat

__all__ = [
    "KameleonSMC",
    "final_log_marginal_likelihood",
    "initial_history_from_smc",
    "stage_stat",
]
