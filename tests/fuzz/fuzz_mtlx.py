"""A longer run of the MaterialX import fuzz target (`mtlx_target.check`) than the test's fixed budget.

    .venv/bin/python tests/fuzz/fuzz_mtlx.py [--seconds N] [--seed S] [--findings DIR]

The duration defaults to $VPL_FUZZ_SECONDS or 300. Prints inputs per second,
how many imported, were refused or re-exported, and each finding (an input
whose check raised something other than a refusal), saved to DIR as
`finding-<n>.mtlx` to replay and turn into a regression test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mtlx_target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("VPL_FUZZ_SECONDS", "300")))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--findings", type=Path, default=Path(tempfile.gettempdir()) / "vpl-mtlx-findings")
    arguments = parser.parse_args()
    seeds = mtlx_target.seed_texts()
    generator = random.Random(arguments.seed)
    counts = {"inputs": 0, "imported": 0, "refused": 0, "exported": 0, "findings": 0}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        while time.perf_counter() - start < arguments.seconds:
            text = seeds[generator.randrange(len(seeds))]
            for _ in range(generator.randint(1, 3)):
                text = mtlx_target.mutate(text, [generator.randrange(2**16) for _ in range(4)])
            data = text.encode("utf-8")
            counts["inputs"] += 1
            try:
                outcome = mtlx_target.check(data, Path(folder))
            except Exception:  # noqa: BLE001 - every escape is a finding to record and keep going
                counts["findings"] += 1
                arguments.findings.mkdir(parents=True, exist_ok=True)
                saved = arguments.findings / f"finding-{counts['findings']}.mtlx"
                saved.write_bytes(data)
                print(f"finding {saved}:\n{traceback.format_exc(limit=3)}", flush=True)
                continue
            counts["imported"] += outcome.imported
            counts["refused"] += bool(outcome.refused)
            counts["exported"] += outcome.exported
    elapsed = time.perf_counter() - start
    print(f"{counts['inputs']} inputs in {elapsed:.0f} s ({counts['inputs'] / elapsed:.1f} inputs/s): "
          f"{counts['imported']} imported, {counts['refused']} refused, {counts['exported']} re-exported, "
          f"{counts['findings']} findings")
    return 1 if counts["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
