"""The package stays within the size and privacy rules of ``tools/check_code_size.py``.

No module over ``MODULE_LIMIT`` lines of code, no function over ``FUNCTION_LIMIT``, and no
private name taken from another module (see the tool's docstring for what counts).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location(
        "check_code_size", ROOT / "tools" / "check_code_size.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_no_long_module_or_function_and_no_private_reach_in():
    tool = _tool()
    modules, functions, privates = tool.scan(ROOT / "pymc_kameleon")
    assert len(modules) > 50  # the scan saw the package
    assert [m.path for m in modules if m.lines > tool.MODULE_LIMIT] == []
    assert [
        f"{f.path}:{f.first_line} {f.name}" for f in functions if f.lines > tool.FUNCTION_LIMIT
    ] == []
    assert [f"{p.path}:{p.line} {p.text}" for p in privates] == []
