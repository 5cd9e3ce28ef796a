"""Launch benchmark: the README's `./run-editor` against `.venv/bin/vpl-editor`, side by side.

Figures, each with the machine's load average:

- **bootstrap**: `scripts/bootstrap.sh` when its stamp matches (nothing to
  do), wall time per run (goal: under 50 ms).
- **first painted window**: from starting the command (a new process, as a
  user does) to the main window's first paint, for `./run-editor` and for
  `.venv/bin/vpl-editor`, in interleaved rounds, and their ratio (goal: at
  most 1.15). The editor is not changed for this: a `sitecustomize` module
  put on the children's PYTHONPATH wraps `app.main.after_first_paint` so
  the child prints the time of its first paint and exits.

Run under a display (e.g. `xvfb-run -a -s "-screen 0 1600x1000x24"
.venv/bin/python benchmarks/bench_launch.py`); `--runs 1` is the smallest
setting.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Loaded by the child's interpreter at start-up (site imports `sitecustomize` from PYTHONPATH): when
#: `app.main` is imported, its `after_first_paint` is wrapped so the first paint prints the time and exits.
SITECUSTOMIZE = '''
import importlib.abc, importlib.machinery, os, sys, time

class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "app.main":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            original = module.after_first_paint

            def after_first_paint(window, action):
                def report():
                    print("FIRST-PAINT", time.time(), flush=True)
                    os._exit(0)
                original(window, report)

            module.after_first_paint = after_first_paint

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _Finder())
'''


def first_paint(command: list[str], environment: dict[str, str]) -> float:
    """Seconds from starting `command` to its window's first paint."""
    started = time.time()
    completed = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
                               check=False)
    line = next((line for line in completed.stdout.splitlines() if line.startswith("FIRST-PAINT")), "")
    if not line:
        raise SystemExit(f"{command[0]} did not report its first paint:\n{completed.stdout}\n{completed.stderr}")
    return float(line.split()[1]) - started


def bootstrap_seconds(runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([str(ROOT / "scripts" / "bootstrap.sh")], cwd=ROOT, check=True)
        samples.append(time.perf_counter() - started)
    return samples


def milliseconds(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.1f} ms (min {min(samples) * 1000:.1f}, n={len(samples)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds of each launch (median); 1 is the smallest")
    arguments = parser.parse_args()
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise SystemExit("bench_launch: needs a display (run it under xvfb-run)")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    check = subprocess.run([str(ROOT / "scripts" / "bootstrap.sh"), "--check"], cwd=ROOT, check=False)
    if check.returncode != 0:
        raise SystemExit("bench_launch: run scripts/bootstrap.sh first (its stamp does not match)")
    print(f"bootstrap, nothing to do:  {milliseconds(bootstrap_seconds(max(5, arguments.runs)))}")

    commands = {"./run-editor": [str(ROOT / "run-editor")], ".venv/bin/vpl-editor": [str(ROOT / ".venv/bin/vpl-editor")]}
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="bench-launch-") as home:
        hook = Path(home) / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        # A fresh user (no recent files, no recovery prompt), the installed editor's compiled bytecode.
        environment = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home, XDG_DATA_HOME=home, XDG_CACHE_HOME=home,
                           PYTHONPATH=str(hook), PYTHONPYCACHEPREFIX=str(Path(home) / "pycache"))
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        first_paint(commands[".venv/bin/vpl-editor"], environment)  # uncounted: fills the bytecode cache
        for _ in range(arguments.runs):
            for name, command in commands.items():
                times[name].append(first_paint(command, environment))
    for name, samples in times.items():
        print(f"first painted window, {name:22s} {milliseconds(samples)}")
    ratio = statistics.median(times["./run-editor"]) / statistics.median(times[".venv/bin/vpl-editor"])
    print(f"ratio ./run-editor / .venv/bin/vpl-editor: {ratio:.3f} (goal at most 1.15)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
