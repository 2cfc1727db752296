"""pymc-kameleon: gradient-free adaptive MCMC step methods for PyMC.

``KameleonStep`` is Kernel Adaptive Metropolis–Hastings (Sejdinovic et al., ICML 2014);
``KMCStep`` is gradient-free Kernel Hamiltonian Monte Carlo (Strathmann et al., NeurIPS 2015);
``AdaptiveMetropolis`` is Haario et al.'s adaptive Metropolis with fixed or learned scale;
``KameleonSMC`` is kernel SMC, a kernel for ``pm.sample_smc(kernel=KameleonSMC)``.
All are drop-in replacements for ``pm.Metropolis()``, and all stay exact when the likelihood is
a stochastic estimate (:func:`noisy_potential`, :func:`estimator_potential`)::

    with model:
        idata = pm.sample(step=KameleonStep())

Importing the package registers ``KameleonStep`` with ``pm.sample``'s automatic step assignment:
it is chosen for the continuous variables of a model with a stochastic likelihood estimate, and
never for other models.
"""

from pymc_kameleon._compat import register_step_method
from pymc_kameleon.pseudo_marginal import (
    NoisyTermError,
    allow_noisy_evaluation,
    estimator_potential,
    noisy_potential,
)
from pymc_kameleon.smc import KameleonSMC, initial_history_from_smc
from pymc_kameleon.step_methods import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    PooledKameleonStep,
    PooledKMCStep,
)
from pymc_kameleon.step_methods.once_per_call import install_once_per_call

__version__ = "0.2.0"

__all__ = [
    "AdaptiveMetropolis",
    "KMCStep",
    "KameleonSMC",
    "KameleonStep",
    "NoisyTermError",
    "PooledAdaptiveMetropolis",
    "PooledKMCStep",
    "PooledKameleonStep",
    "__version__",
    "allow_noisy_evaluation",
    "estimator_potential",
    "initial_history_from_smc",
    "noisy_potential",
]

register_step_method(KameleonStep)
install_once_per_call()  # (each chain's notice said once per pm.sample call)
