"""The modules moved into ``pymc_kameleon.targets`` stay importable from their old places."""

from __future__ import annotations

import importlib

import pytest

MOVED = [
    ("pymc_kameleon.datasets", "pymc_kameleon.targets.glass"),
]


@pytest.mark.parametrize(("old", "new"), MOVED, ids=[old for old, _ in MOVED])
def test_old_module_re_exports_every_public_name(old, new):
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    assert old_module.__all__ == new_module.__all__
    for name in new_module.__all__:
        assert getattr(old_module, name) is getattr(new_module, name), name
    assert new in old_module.__doc__
