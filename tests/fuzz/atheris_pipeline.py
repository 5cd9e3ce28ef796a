"""Coverage-guided fuzzing of the whole pipeline with atheris (libFuzzer), for long runs.

    .venv/bin/pip install atheris          # or: pip install -e '.[fuzz]'
    .venv/bin/python tests/fuzz/atheris_pipeline.py [libFuzzer options] [CORPUS_DIR ...]

e.g. `-max_total_time=3600 -timeout=60 /tmp/vpl-corpus`. With no corpus
directory given it starts from the project's valid modules (written to a
fresh temporary directory). Each input goes through `pipeline.check`
(reader, verifier, writer round trip, publication, all three targets, and
glslangValidator on every accepted program when it is installed); a failed
property or any unexpected exception is a crash that libFuzzer saves as
`crash-*` for replay (`python tests/fuzz/atheris_pipeline.py crash-FILE`).
Half of the inputs are structure-aware mutations of the data as module text
(`pipeline.mutate`), the other half libFuzzer's own byte mutations.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports(include=["vpl_core"]):
    import pipeline

VALIDATOR = shutil.which("glslangValidator")


def test_one_input(data: bytes) -> None:
    pipeline.check(data, VALIDATOR)


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    if seed % 2:
        return atheris.Mutate(data, max_size)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return atheris.Mutate(data, max_size)
    choices = [seed >> shift & 0xFFFF for shift in (1, 7, 13, 19)]
    return pipeline.mutate(text, choices).encode("utf-8")[:max_size]


def main() -> None:
    arguments = list(sys.argv)
    if not any(not argument.startswith("-") for argument in arguments[1:]):
        corpus = Path(tempfile.mkdtemp(prefix="vpl-corpus-"))
        for index, text in enumerate(pipeline.seed_texts()):
            (corpus / f"seed-{index:03d}.vpl").write_text(text, encoding="utf-8")
        arguments.append(str(corpus))
    atheris.Setup(arguments, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
