"""pymc-kameleon: gradient-free adaptive MCMC step methods for PyMC.

``KameleonStep`` is Kernel Adaptive Metropolis–Hastings (Sejdinovic et al., ICML 2014);
``KMCStep`` is gradient-free Kernel Hamiltonian Monte Carlo (Strathmann et al., NeurIPS 2015);
``AdaptiveMetropolis`` is Haario et al.'s adaptive Metropolis with fixed or learned scale.
All are drop-in replacements for ``pm.Metropolis()``, and all stay exact when the likelihood is
a stochastic estimate (:func:`noisy_potential`, :func:`estimator_potential`)::

    with model:
        idata = pm.sample(step=KameleonStep())
"""

from pymc_kameleon.pseudo_marginal import estimator_potential, noisy_potential
from pymc_kameleon.step_methods import AdaptiveMetropolis, KameleonStep, KMCStep

__version__ = "0.1.0"

__all__ = [
    "AdaptiveMetropolis",
    "KMCStep",
    "KameleonStep",
    "__version__",
    "estimator_potential",
    "noisy_potential",
]
