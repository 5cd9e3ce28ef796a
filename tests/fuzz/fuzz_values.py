"""Long runs of the stage-object and `--set` fuzz targets (`values.py`): random inputs for a time budget.

    .venv/bin/python tests/fuzz/fuzz_values.py [--seconds 600] [--seed 1] [--target stage|set|both]

Prints the inputs per second of each target and every finding (the seed
that makes it: `values.random_stage(random.Random(SEED))`); exit status 1
when there was one. `VPL_FUZZ_SECONDS` sets the default budget.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import values


def run(target: str, seconds: float, first_seed: int) -> tuple[int, list[str]]:
    make, check = {"stage": (values.random_stage, values.check_stage),
                   "set": (values.random_assignment, values.check_set)}[target]
    findings: list[str] = []
    count = 0
    deadline = time.perf_counter() + seconds
    seed = first_seed
    while time.perf_counter() < deadline:
        data = make(random.Random(seed))
        try:
            check(data)  # type: ignore[operator]  # each target takes what its generator makes
        except Exception as error:  # noqa: BLE001 - a finding is any exception: it is reported with its seed
            findings.append(f"{target} seed {seed}: {type(error).__name__}: {str(error)[:300]}\n"
                            + "".join(traceback.format_exception(error)[-3:]))
        count += 1
        seed += 1
    return count, findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("VPL_FUZZ_SECONDS", "600")))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", choices=("stage", "set", "both"), default="both")
    arguments = parser.parse_args()
    targets = ("stage", "set") if arguments.target == "both" else (arguments.target,)
    status = 0
    for target in targets:
        started = time.perf_counter()
        count, findings = run(target, arguments.seconds / len(targets), arguments.seed)
        elapsed = time.perf_counter() - started
        print(f"{target}: {count} inputs in {elapsed:.0f} s ({count / elapsed:.0f} inputs/s), {len(findings)} findings")
        for finding in findings[:20]:
            print(finding)
        status = status or (1 if findings else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
