"""Shared test models and sampling helpers (not tests; no test file imports another test file).

Importable as ``helpers`` because ``pyproject.toml`` puts ``tests/`` on ``sys.path``
(``[tool.pytest.ini_options] pythonpath``), so ``python -m pytest`` finds it from a clean clone.

- :mod:`helpers.sampling`: running a step by hand, comparing chain states, reading draws.
- :mod:`helpers.models`: small PyMC models with exact answers.
- :mod:`helpers.noisy_models`: pseudo-marginal models (a noisy ``Potential`` in both forms).
"""
