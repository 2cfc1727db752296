"""Command line of the real-model validation suite (also reached as
``python -m pymc_kameleon.bench real ...`` and ``... real-references ...``)."""

from __future__ import annotations

import sys

from pymc_kameleon.bench.real.cli import main

if __name__ == "__main__":
    sys.exit(main())
