"""Data files shipped with the package; read them through :mod:`pymc_kameleon.targets.glass`."""
