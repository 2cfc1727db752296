"""Write ``tests/durations.json`` from the ``--durations`` report of a pytest run.

Usage::

    python -m pytest --tier all --durations=0 -q > pytest-report.txt
    python tools/record_test_durations.py pytest-report.txt

``tests/conftest.py`` hands the tests to the pytest-xdist workers longest first (the longest-
processing-time rule), so neither worker idles at the end while the other runs a minute-long
test. Only tests over half a second are kept (the rest run in any order), rounded to 0.1 s. The
file is a schedule hint, never a test result: a missing or stale entry only costs balance.
Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^(?P<seconds>[0-9.]+)s (?:setup|call|teardown)\s+(?P<nodeid>\S.*)$")
KEEP_ABOVE = 0.5
OUT = Path(__file__).resolve().parents[1] / "tests" / "durations.json"


def durations(report: str) -> dict[str, float]:
    """Seconds per test (setup, call and teardown added) from a pytest ``--durations`` report."""
    total: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        match = LINE.match(line.strip())
        if match:
            total[match["nodeid"].strip()] += float(match["seconds"])
    return {k: round(v, 1) for k, v in sorted(total.items()) if v > KEEP_ABOVE}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    found = durations(Path(argv[0]).read_text())
    if not found:
        print(f"no --durations lines in {argv[0]}: run pytest with --durations=0")
        return 1
    OUT.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
    print(f"{len(found)} tests over {KEEP_ABOVE} s written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
