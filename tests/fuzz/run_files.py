"""Long runs of the file readers' fuzz targets: seeded random mutations for a time budget, inputs/s and findings.

    .venv/bin/python tests/fuzz/run_files.py --seconds 600 [--target gltf] [--seed 1]

A finding (any exception but the reader's own error) is printed with its
traceback and saved as `finding-<target>-<n>.<suffix>` in the working
directory; replay it with `--replay FILE --target NAME`, and add it as a
regression test next to the code it breaks.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="time budget per target")
    parser.add_argument("--target", action="append", help="a target (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--replay", type=Path, help="read this input once (with --target)")
    arguments = parser.parse_args()
    targets = files.targets()
    names = arguments.target or sorted(targets)
    folder = Path(tempfile.mkdtemp(prefix="vpl-fuzz-files-"))
    if arguments.replay is not None:
        files.check(targets[names[0]], arguments.replay.read_bytes(), folder)
        print("no finding")
        return 0
    generator = random.Random(arguments.seed)
    total_findings = 0
    for name in names:
        target = targets[name]
        inputs = accepted = findings = 0
        started = time.perf_counter()
        while time.perf_counter() - started < arguments.seconds:
            data = target.seeds[generator.randrange(len(target.seeds))]
            for _ in range(generator.randint(1, 4)):
                data = files.mutate(data, [generator.randrange(2**16) for _ in range(4)])
            try:
                accepted += files.check(target, data, folder)
            except Exception:  # noqa: BLE001 - every unexpected exception is a finding, reported and kept
                findings += 1
                saved = Path(f"finding-{name}-{findings}{Path(target.file_name).suffix}")
                saved.write_bytes(data)
                print(f"FINDING {name} -> {saved}\n{traceback.format_exc()}", flush=True)
            inputs += 1
        elapsed = time.perf_counter() - started
        total_findings += findings
        print(f"{name}: {inputs} inputs in {elapsed:.0f} s ({inputs / elapsed:.0f}/s), "
              f"{accepted} accepted, {findings} findings", flush=True)
    return 1 if total_findings else 0


if __name__ == "__main__":
    sys.exit(main())
