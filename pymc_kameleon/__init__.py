"""pymc-kameleon: gradient-free adaptive MCMC step methods for PyMC.

``KameleonStep`` is Kernel Adaptive Metropolis–Hastings (Sejdinovic et al., ICML 2014);
``KMCStep`` is gradient-free Kernel Hamiltonian Monte Carlo (Strathmann et al., NeurIPS 2015);
``AdaptiveMetropolis`` is Haario et al.'s adaptive Metropolis with fixed or learned scale.
All are drop-in replacements for ``pm.Metropolis()``::

    with model:
        idata = pm.sample(step=KameleonStep())
"""

from pymc_kameleon.step_methods import AdaptiveMetropolis, KameleonStep, KMCStep

__version__ = "0.1.0"

__all__ = ["AdaptiveMetropolis", "KMCStep", "KameleonStep", "__version__"]
