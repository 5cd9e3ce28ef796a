"""The MaterialX import fuzz target: one document through `import_mtlx`, the lowering, saving and re-export.

`check(data, folder)` is the property every input must satisfy:

* `import_mtlx` either returns a graph or raises `ExportError` (one line for
  the artist); nothing else escapes (no RecursionError, ValueError, ...);
* an imported graph lowers without errors (the importer never makes a module
  that does not verify) and saves as a document (finite JSON);
* re-exporting it gives a document MaterialX's `validate()` accepts, or an
  `ExportError` (a node to bake needs OpenGL: `NeedsBaking`).

Inputs are mutations (`mutate`) of the MaterialX repository's example
materials bundled in tests/data/materialx and of the editor's exports of its
mapped examples. Drivers: `test_fuzz_mtlx.py` (hypothesis, fixed budget in
every run and CI) and `fuzz_mtlx.py` (a longer run that prints inputs/s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from app.export import mtlx
from app.export.surface import ExportError
from app.material.document import load_file, save_text
from app.material.lowering import lower

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "data" / "materialx" / "Materials" / "Examples"
#: Values a hostile or broken document may hold.
HOSTILE_VALUES = ("nan", "inf", "-inf", "1e999", "-1e999", "", " ", "1, 2", "1,2,3,4,5", "&lt;", "&#0;", "&#x41;", "x", "0x10",
                  "1e-999", "-0", "true", "9" * 400, ", ".join(["1"] * 2000), "1;2;3", "NaN, 0, 0")
TYPES = ("float", "color3", "color4", "vector2", "vector3", "vector4", "integer", "boolean", "string", "filename", "surfaceshader",
         "multioutput", "matrix33", "bogus")
CATEGORIES = ("add", "multiply", "convert", "image", "tiledimage", "constant", "extract", "separate3", "combine3", "mix",
              "noise2d", "UsdUVTexture", "gltf_image", "normalmap", "ifgreater", "clamp", "place2d", "rgbtohsv", "hsvtorgb",
              "unknown_node")


#: The editor's examples whose MaterialX exports are seeds too.
EXPORTED_EXAMPLES = ("glazed_ceramic", "material_chart", "painted_metal", "polished_gold")


def _seed_documents() -> list[Path]:
    """The bundled examples that are mutated. A document that includes others (the looks) is left out: a mutant is
    read from a scratch folder, where its includes are not (tests/app/export/test_mtlx_files.py checks includes)."""
    return [path for path in sorted(EXAMPLES.glob("*/*.mtlx")) if "xi:include" not in path.read_text(encoding="utf-8")]


def seed_count() -> int:
    """len(seed_texts()), without exporting anything (for a parametrisation at collection)."""
    return len(_seed_documents()) + len(EXPORTED_EXAMPLES)


def seed_texts() -> list[str]:
    """Documents to mutate: the bundled MaterialX examples and the editor's exports of its mapped examples."""
    texts = [path.read_text(encoding="utf-8") for path in _seed_documents()]
    for name in EXPORTED_EXAMPLES:
        graph = load_file(str(ROOT / "resources" / "examples" / f"{name}.vpl")).graph
        assert graph is not None
        texts.append(mtlx.export_document(graph, Path(f"/nonexistent/{name}.mtlx"), name,
                                          document_dir=ROOT / "resources" / "examples").text)
    return texts


def mutate(text: str, choices: list[int]) -> str:
    """One mutation of `text` chosen by four integers (deterministic)."""
    kind, first, second, third = (choices + [0, 0, 0, 0])[:4]
    lines = text.splitlines()
    values = list(re.finditer(r'value="[^"]*"', text))
    names = re.findall(r'name="([^"]*)"', text)
    operation = kind % 10
    if operation == 0 and values:
        match = values[first % len(values)]
        return text[: match.start()] + f'value="{HOSTILE_VALUES[second % len(HOSTILE_VALUES)]}"' + text[match.end():]
    if operation == 1 and names:  # reconnect an input to another node: cycles, self-loops, missing nodes
        references = list(re.finditer(r'nodename="[^"]*"', text))
        if references:
            match = references[first % len(references)]
            target = names[second % len(names)] if third % 5 else "missing_node"
            return text[: match.start()] + f'nodename="{target}"' + text[match.end():]
    if operation == 2 and lines:
        del lines[first % len(lines)]
        return "\n".join(lines)
    if operation == 3 and lines:
        index = first % len(lines)
        lines.insert(second % (len(lines) + 1), lines[index])
        return "\n".join(lines)
    if operation == 4:
        types = list(re.finditer(r'type="[^"]*"', text))
        if types:
            match = types[first % len(types)]
            return text[: match.start()] + f'type="{TYPES[second % len(TYPES)]}"' + text[match.end():]
    if operation == 5:
        tags = list(re.finditer(r"<([a-zA-Z_0-9]+) name=", text))
        if tags:
            match = tags[first % len(tags)]
            category = CATEGORIES[second % len(CATEGORIES)]
            closing = f"</{match.group(1)}>"
            end = text.find(closing, match.end())
            mutated = text[: match.start(1)] + category + text[match.end(1):]
            if end >= 0 and "/>" not in text[match.end(): text.find(">", match.end()) + 1]:
                shift = len(category) - len(match.group(1))
                mutated = mutated[: end + shift] + f"</{category}>" + mutated[end + shift + len(closing):]
            return mutated
    if operation == 6:
        tags = list(re.finditer(r"<[a-zA-Z_0-9]+ name=\"[^\"]*\"", text))
        if tags:
            match = tags[first % len(tags)]
            attribute = (' xpos="nan" ypos="1e999"', ' xpos="x"', ' fileprefix="../../../../../../etc/"', ' colorspace="acescg"',
                         ' colorspace="bogus"', ' nodegraph="missing" output="x"', ' interfacename="nope"')[second % 7]
            return text[: match.end()] + attribute + text[match.end():]
    if operation == 7 and text:
        return text[: first % len(text)]
    if operation == 8 and text:
        data = bytearray(text.encode("utf-8"))
        data[first % len(data)] = second % 256
        return data.decode("utf-8", errors="replace")
    if operation == 9 and names:  # a deep chain: an `add` reading itself through many nodes
        count = 50 + first % 400
        chain = "".join(f'<add name="deep{k}" type="float"><input name="in1" type="float" nodename="deep{k + 1 if k + 1 < count else 0}" />'
                        f"</add>" for k in range(count))
        position = text.find("<nodegraph")
        position = text.find(">", position) + 1 if position >= 0 else -1
        if position > 0:
            chained = text[:position] + chain + text[position:]
            references = list(re.finditer(r'nodename="[^"]*"', chained[position + len(chain):]))
            if references and third % 2:
                match = references[second % len(references)]
                start = position + len(chain) + match.start()
                return chained[:start] + 'nodename="deep0"' + chained[start + match.end() - match.start():]
            return chained
    return text


@dataclass
class Outcome:
    imported: bool = False
    refused: str = ""
    exported: bool = False
    notes: list[str] = field(default_factory=list)


def check(data: bytes, folder: Path) -> Outcome:
    """Import one document (written into `folder`, beside which its textures resolve); raise on a bug."""
    outcome = Outcome()
    path = folder / "fuzz.mtlx"
    path.write_bytes(data)
    try:
        imported = mtlx.import_mtlx(path)
    except ExportError as error:
        outcome.refused = str(error)
        assert outcome.refused and "\n" not in outcome.refused.strip(), outcome.refused
        return outcome
    outcome.imported = True
    outcome.notes = imported.skipped
    lowered = lower(imported.graph)
    assert lowered.text and not lowered.errors, [str(error) for error in lowered.errors]
    save_text(imported.graph, lowered)
    try:
        exported = mtlx.export_document(imported.graph, folder / "again.mtlx", "again", document_dir=folder)
    except ExportError:
        return outcome
    valid, message = mtlx.validate(exported.text)
    assert valid, message
    outcome.exported = True
    return outcome
