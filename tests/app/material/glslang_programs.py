"""glslangValidator over many programs (a vertex and a fragment stage each) in few processes.

A glslangValidator run is nearly all its start-up (the built-in symbol tables of each stage and
profile): 44 ms of CPU for one linked program, 0.5 ms per file more. Without `-l` one process
compiles every file it is given separately (the tables shared) and reports each file's errors under
its name; with `-l` it links every file it is given into one program, so a link checks one program
per process. What a link checks beyond the stage compiles (docs/testing.md, "glslangValidator in
batches"):

* across the stages, their interfaces: the vertex outputs against the fragment inputs, a uniform or
  block of one name declared alike in both. glslang compares the stages' global objects (its
  "Linker Objects"); the key here also holds each tree's header (version, requested extensions,
  stage layouts), so programs differing there are linked apart;
* within each stage, its call graph: one `main`, a body for every function called (the backend
  declares its functions before defining them), no recursion.

`check_programs` compiles every stage of every program in one process with `-i` (glslang's tree of
each file), reads each stage's header, linker objects and call graph from that tree, checks the
call graph of every stage, and links one program for each distinct pair of stage interfaces: the
link's verdict on the interfaces is the same for every program sharing that pair. A program's
errors are its own stages' compile errors, its call-graph errors and the link errors of its pair.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

_DEFINITION = re.compile(r"^0:\S+ ( *)Function Definition: (\S+)")
_CALL = re.compile(r"Function Call: (\S+)")


@dataclass
class Stage:
    """What glslang's tree of one compiled stage says the link reads."""

    errors: list[str] = field(default_factory=list)
    interface: str = ""
    calls: dict[str, set[str]] = field(default_factory=dict)  # function -> the functions its body calls


def _parse_tree(text: str) -> Stage:
    """A stage from glslangValidator's output for one file (`-i`): its errors, its interface (the
    header before the tree and the linker objects after it) and its call graph."""
    stage = Stage()
    lines = text.splitlines()
    stage.errors = [line for line in lines if line.startswith("ERROR:")]
    if stage.errors:
        return stage
    start = lines.index("0:? Sequence")
    objects = lines.index("0:?   Linker Objects")
    stage.interface = "\n".join(lines[:start] + lines[objects:])
    current: str | None = None
    for line in lines[start:objects]:
        definition = _DEFINITION.match(line)
        if definition:
            current = definition.group(2)
            stage.calls[current] = set()
            continue
        call = _CALL.search(line)
        if call and current is not None:
            stage.calls[current].add(call.group(1))
    return stage


def call_graph_errors(calls: dict[str, set[str]]) -> list[str]:
    """What glslang's link reports of a stage's call graph: no `main`, a function called from `main`
    (through any calls) without a body, a function that reaches itself."""
    if "main(" not in calls:
        return ["Missing entry point: Each stage requires one entry point"]
    errors: list[str] = []
    reached = {"main("}
    frontier = set(calls["main("])
    while frontier:
        errors += [f"No function definition (body) found: {callee}" for callee in sorted(frontier - set(calls))]
        reached |= frontier
        frontier = {callee for each in frontier for callee in calls.get(each, ())} - reached
    for function in sorted(calls):
        seen: set[str] = set()
        frontier = set(calls[function])
        while frontier:
            if function in frontier:
                errors.append(f"Recursion detected: {function}")
                break
            seen |= frontier
            frontier = {callee for each in frontier for callee in calls.get(each, ())} - seen
    return errors


def _split_by_file(output: str, paths: list[str]) -> dict[str, str]:
    """glslangValidator's output of a run over `paths`, cut at each file's name line."""
    sections: dict[str, list[str]] = {}
    remaining = iter(paths)
    expected = next(remaining, None)
    current: list[str] | None = None
    for line in output.splitlines():
        if line == expected:
            current = sections.setdefault(line, [])
            expected = next(remaining, None)
        elif current is not None:
            current.append(line)
    missing = [path for path in paths if path not in sections]
    assert not missing, f"glslangValidator's output names no section for {missing[:3]}:\n{output[-2000:]}"
    return {path: "\n".join(lines) for path, lines in sections.items()}


_LINKS: dict[tuple[str, str], list[str]] = {}  # a pair of stage interfaces -> its link's errors


def check_programs(validator: str, directory: Path, programs: dict[str, tuple[str, str]]) -> dict[str, list[str]]:
    """glslangValidator's errors for each program (name -> its vertex and fragment code), as a link
    of each program alone (`-l`) would report them; an empty list where it passes."""
    directory.mkdir(parents=True, exist_ok=True)
    files: dict[str, tuple[str, str]] = {}
    for number, (name, (vertex_code, fragment_code)) in enumerate(programs.items()):
        vertex, fragment = directory / f"p{number}.vert.glsl", directory / f"p{number}.frag.glsl"
        vertex.write_text(vertex_code)
        fragment.write_text(fragment_code)
        files[name] = (str(vertex), str(fragment))
    paths = [path for pair in files.values() for path in pair]
    completed = subprocess.run([validator, "-i", *paths], capture_output=True, text=True)
    stages = {path: _parse_tree(text) for path, text in _split_by_file(completed.stdout, paths).items()}
    assert (completed.returncode == 0) == all(not stage.errors for stage in stages.values()), completed.stderr
    errors: dict[str, list[str]] = {}
    for name, (vertex, fragment) in files.items():
        found = [f"{path}: {error}" for path in (vertex, fragment) for error in stages[path].errors]
        if not found:
            found = [f"{path}: {error}" for path in (vertex, fragment) for error in call_graph_errors(stages[path].calls)]
        if not found:
            pair = (stages[vertex].interface, stages[fragment].interface)
            if pair not in _LINKS:
                linked = subprocess.run([validator, "-l", vertex, fragment], capture_output=True, text=True)
                _LINKS[pair] = [] if linked.returncode == 0 else [f"the link of {name}:\n{linked.stdout}{linked.stderr}"]
            found = _LINKS[pair]
        errors[name] = found
    return errors
