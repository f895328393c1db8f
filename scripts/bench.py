"""`make bench`: run every stage's benchmark script (scripts/bench_*.py) in turn and print its figures.

Each bench script prints its own figures and compares with a peer in the same run where one exists.
Pass stage names to run a subset: python scripts/bench.py rules referee
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    failed = []
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)])
        print(f"--- {script.stem}: exit {code} in {time.perf_counter() - start:.1f} s", flush=True)
        if code != 0:
            failed.append(script.stem)
    if failed:
        print(f"\nbenchmarks that failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
