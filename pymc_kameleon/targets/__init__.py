"""Example and benchmark posteriors with exact answers, as NumPy functions and PyMC models.

- :mod:`~pymc_kameleon.targets.banana`: the banana B(b, v) of Haario et al. (1999), the main
  target of the KAMH paper;
- :mod:`~pymc_kameleon.targets.flower`: the flower F(r0, A, omega, sigma), a ring with petals;
- :mod:`~pymc_kameleon.targets.gaussian`: a multivariate Gaussian, for sanity checks;
- :mod:`~pymc_kameleon.targets.mixture`: mixtures of well-separated Gaussians, whose modes'
  weights are known (:class:`GaussianMixture`, :data:`MIXTURES`);
- :mod:`~pymc_kameleon.targets.pseudo_marginal_models`: the two pseudo-marginal targets of the
  papers, GP classification on UCI Glass (:func:`glass_gpc_model`) and ABC with a skew-normal
  simulator (:func:`abc_skew_normal_model`), whose likelihood estimators are in
  :mod:`~pymc_kameleon.targets.gp_classification` (with the data in
  :mod:`~pymc_kameleon.targets.glass`) and :mod:`~pymc_kameleon.targets.abc_skew_normal`;
- :func:`abc_tractable_model`: the same ABC posterior with its likelihood
  computed exactly (:mod:`~pymc_kameleon.targets.abc_exact`), for NUTS: the reference answer.

The names below are re-exported here, so ``from pymc_kameleon.targets import banana_model``
works.
"""

from pymc_kameleon.targets.abc_tractable_model import abc_tractable_model
from pymc_kameleon.targets.banana import (
    banana_logp,
    banana_model,
    banana_to_gaussian,
    sample_banana,
)
from pymc_kameleon.targets.flower import (
    flower_logp,
    flower_model,
    flower_radial_residual,
    sample_flower,
)
from pymc_kameleon.targets.gaussian import gaussian_model
from pymc_kameleon.targets.mixture import MIXTURES, GaussianMixture, weight_zscores
from pymc_kameleon.targets.pseudo_marginal_models import abc_skew_normal_model, glass_gpc_model

__all__ = [
    "MIXTURES",
    "GaussianMixture",
    "abc_skew_normal_model",
    "abc_tractable_model",
    "banana_logp",
    "banana_model",
    "banana_to_gaussian",
    "flower_logp",
    "flower_model",
    "flower_radial_residual",
    "gaussian_model",
    "glass_gpc_model",
    "sample_banana",
    "sample_flower",
    "weight_zscores",
]
