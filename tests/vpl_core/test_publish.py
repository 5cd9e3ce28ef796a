"""Verified publication (spec 11): an immutable canonical-text snapshot, fresh materializations."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "text"))

from text_support import assert_same_module, minimal_module, random_module

from vpl_core.diagnostics import SemanticError
from vpl_core.ir import FLOAT, ConstantValue, FunctionBuilder, add_uniform
from vpl_core.publish import VerifiedModule
from vpl_core.records import is_record
from vpl_core.text import read, write

SPEC_EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "spec" / "loop-and-helper.vpl"


def test_create_publishes_the_canonical_text() -> None:
    module = minimal_module()
    published = VerifiedModule.create(module, label="minimal")
    assert published.text == write(module)
    assert published.label == "minimal"
    assert isinstance(published.text, str)


def test_mutating_the_builder_never_changes_the_snapshot() -> None:
    module = minimal_module()
    published = VerifiedModule.create(module)
    before = published.text
    entry = module.fragment.entry
    entry.name = "renamed"
    entry.blocks[0].instructions[1].arguments[0] = ConstantValue.of_float(0.25)
    add_uniform(module, "late", FLOAT)
    FunctionBuilder(entry).register(FLOAT)
    module.vertex.interface[0].name = "moved"
    assert published.text == before
    assert write(module) != before  # the builder really changed
    assert write(published.materialize()) == before


def test_materialize_returns_fresh_distinct_verified_modules() -> None:
    published = VerifiedModule.from_text(SPEC_EXAMPLE.read_bytes(), label=SPEC_EXAMPLE.name)
    first, second = published.materialize(), published.materialize()
    assert first is not second
    assert first.fragment is not second.fragment
    assert first.fragment.entry is not second.fragment.entry
    assert first.fragment.entry.blocks[0] is not second.fragment.entry.blocks[0]
    assert_same_module(first, second)
    assert write(first) == published.text


def test_mutating_a_materialization_changes_neither_the_snapshot_nor_later_materializations() -> None:
    published = VerifiedModule.create(random_module(11))
    text = published.text
    first = published.materialize()
    first.fragment.entry.name = "changed"
    first.fragment.entry.blocks.clear()
    first.uniforms.clear()
    assert published.text == text
    later = published.materialize()
    assert write(later) == text
    assert later.fragment.entry.blocks


def test_the_snapshot_is_immutable() -> None:
    published = VerifiedModule.create(minimal_module())
    with pytest.raises(AttributeError):
        published._text = "(module 2)"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        published.text = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del published._text
    with pytest.raises(TypeError):
        VerifiedModule()


def test_publication_requires_a_valid_module() -> None:
    module = minimal_module()
    module.fragment.entry.blocks[0].terminator = None
    with pytest.raises(SemanticError):
        VerifiedModule.create(module)


def test_equal_programs_publish_equal_snapshots() -> None:
    text = SPEC_EXAMPLE.read_text(encoding="utf-8")
    first = VerifiedModule.from_text(text)
    second = VerifiedModule.create(read(text))
    assert first == second and hash(first) == hash(second)
    assert first != VerifiedModule.create(minimal_module())


# One read per publication (issue 20): the same contract, less work --------------------------


def _mutable_objects(module: object) -> dict[int, object]:
    """Every object reachable from the module that is not a frozen value (containers, records, instructions)."""
    from vpl_core.ir import paths

    found: dict[int, object] = {id(module): module}
    for _, value in paths.walk(module):  # type: ignore[arg-type]
        frozen = is_record(value) and type(value)._frozen
        if not frozen:
            found[id(value)] = value
    return found


@pytest.mark.parametrize("seed", range(12))
def test_materializations_share_no_mutable_object_with_the_snapshot_or_each_other(seed: int) -> None:
    published = VerifiedModule.create(random_module(seed))
    first, second = published.materialize(), published.materialize()
    snapshot = published._snapshot  # the private parse: never handed out
    for left, right in ((first, second), (first, snapshot), (second, snapshot)):
        shared = _mutable_objects(left).keys() & _mutable_objects(right).keys()
        assert not shared, [_mutable_objects(left)[key] for key in list(shared)[:3]]
    assert write(first) == write(second) == published.text
    assert_same_module(first, read(published.text))


@pytest.mark.parametrize("seed", range(12))
def test_publishing_any_module_reads_its_text_back_once_and_materializes_without_parsing(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer's read-back becomes the private parse; materialize copies and verifies it, never re-reads."""
    import vpl_core.text.reader as reader_module
    from vpl_core.verify import Verifier

    module = random_module(seed)
    parses: list[str | None] = []
    verifications: list[object] = []
    real_read_module, real_run = reader_module._Reader.read_module, Verifier.run

    def counting_read_module(self, top):  # type: ignore[no-untyped-def]
        parses.append(self.source.label)
        return real_read_module(self, top)

    def counting_run(self, checked):  # type: ignore[no-untyped-def]
        verifications.append(checked)
        return real_run(self, checked)

    monkeypatch.setattr(reader_module._Reader, "read_module", counting_read_module)
    monkeypatch.setattr(Verifier, "run", counting_run)
    published = VerifiedModule.create(module)
    assert parses == ["<canonical text>"]  # the proof that the text reads back, and the private parse
    assert verifications[0] is module  # the module as it is now (spec 11: write verifies a current module)
    parses.clear(), verifications.clear()
    materialized = published.materialize()
    assert parses == []  # no parse ...
    assert verifications == [materialized]  # ... but its own verification, never skipped


def test_canonical_source_is_read_once_other_source_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    import vpl_core.text.reader as reader_module

    canonical = write(read(SPEC_EXAMPLE.read_bytes()))
    parses: list[str | None] = []
    real = reader_module._Reader.read_module

    def counting(self, top):  # type: ignore[no-untyped-def]
        parses.append(self.source.label)
        return real(self, top)

    monkeypatch.setattr(reader_module._Reader, "read_module", counting)
    assert VerifiedModule.from_text(canonical, label="canonical.vpl").text == canonical
    assert parses == ["canonical.vpl"]  # the first read is the read-back
    parses.clear()
    assert VerifiedModule.from_text(canonical.encode("utf-8"), label="bytes.vpl").text == canonical
    assert parses == ["bytes.vpl"]
    parses.clear()
    assert VerifiedModule.from_text(SPEC_EXAMPLE.read_bytes(), label="spec.vpl").text == canonical
    assert parses == ["spec.vpl", "<canonical text>"]  # not canonical: the written text is read back


def test_canonical_text_laid_out_otherwise_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Source with the canonical text's tokens, its lines joined or broken elsewhere, is taken as its own
    read-back (the same forms read the same way) and verified once; other tokens, or a comment, make the
    canonical text be read back."""
    import vpl_core.text.reader as reader_module
    from vpl_core.backends.glsl import compile_source
    from vpl_core.verify import Verifier

    canonical = write(read(SPEC_EXAMPLE.read_bytes()))
    parses: list[str | None] = []
    verified: list[object] = []
    real_read_module, real_run = reader_module._Reader.read_module, Verifier.run

    def counting_read_module(self, top):  # type: ignore[no-untyped-def]
        parses.append(self.source.label)
        return real_read_module(self, top)

    def counting_run(self, checked):  # type: ignore[no-untyped-def]
        verified.append(checked)
        return real_run(self, checked)

    monkeypatch.setattr(reader_module._Reader, "read_module", counting_read_module)
    monkeypatch.setattr(Verifier, "run", counting_run)
    joined = canonical.replace("\n", " ").replace("(", " ( ")
    for publish in (lambda text: VerifiedModule.from_text(text, label="laid-out.vpl"),
                    lambda text: compile_source(text, "laid-out.vpl").source):
        parses.clear(), verified.clear()
        assert publish(joined).text == canonical
        assert parses == ["laid-out.vpl"]
        assert len(verified) == 1
    commented = "// a comment\n" + joined
    for source in (SPEC_EXAMPLE.read_text(encoding="utf-8"), commented):  # other tokens (ids, types), not plain
        parses.clear()
        published = VerifiedModule.from_text(source, label="other.vpl")
        assert parses == ["other.vpl", "<canonical text>"]
        assert published.text == write(read(source))


def test_a_publication_of_canonical_source_is_not_changed_by_its_materializations() -> None:
    canonical = write(read(SPEC_EXAMPLE.read_bytes()))
    published = VerifiedModule.from_text(canonical)
    first = published.materialize()
    first.fragment.entry.blocks[0].instructions.clear()
    first.uniforms.clear()
    assert write(published.materialize()) == canonical == published.text


def test_materialize_verifies_the_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A materialization that does not verify is an error, not a module (its verification is not skipped)."""
    import vpl_core.ir.clone as clone

    published = VerifiedModule.create(minimal_module())
    real = clone.clone_module

    def broken_copy(module):  # type: ignore[no-untyped-def]
        copy = real(module)
        copy.fragment.entry.blocks[0].terminator = None
        return copy

    monkeypatch.setattr(clone, "clone_module", broken_copy)
    with pytest.raises(SemanticError):
        published.materialize()


# compile_source's reads without positions (issue 20) --------------------------------------------

_SOURCES = sorted((Path(__file__).resolve().parents[1] / "data" / "spec").glob("*.vpl")) + sorted(
    (Path(__file__).resolve().parents[2] / "resources" / "programs").glob("*.vpl")
)


_GENERATED = ("generated-1k", "wide-uniforms-1k")
_SPELLINGS = ("", " canonical", " commented")
#: every case's name: each source as written, canonical, and with a comment and tabs (not plain text). The
#: texts are made when a test asks (`_spelled`), not at collection, where every worker would make them all.
_SPELLING_NAMES = [f"{name}{spelling}" for name in [path.name for path in _SOURCES] + list(_GENERATED)
                   for spelling in _SPELLINGS]


@functools.cache
def _source(name: str) -> str:
    if name not in _GENERATED:
        return next(path for path in _SOURCES if path.name == name).read_text(encoding="utf-8")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    if name == "generated-1k":
        from bench_glsl import generate_module

        return str(generate_module(1000))
    from bench_pipeline import wide_uniforms_module

    return str(wide_uniforms_module(1000))  # record and array paths, each spelled many times


def _spelled(case: str) -> str:
    """The text of one case of `_SPELLING_NAMES`."""
    for spelling in reversed(_SPELLINGS):
        if case.endswith(spelling):
            text = _source(case.removesuffix(spelling))
            if spelling == " canonical":
                return write(read(text))
            if spelling == " commented":
                return "// a comment\n" + text.replace("  ", "\t", 3)
            return text
    raise AssertionError(case)


@pytest.mark.parametrize("name", _SPELLING_NAMES)
def test_compile_source_gives_what_the_exact_path_gives(name: str) -> None:
    """The position-free reads with shared registers give the exact reader's module, text and artifact."""
    text = _spelled(name)
    from vpl_core.backends.glsl import compile, compile_source
    from vpl_core.backends.glsl.export import artifact_json
    from vpl_core.text.reader import read_located, read_unverified_unpositioned

    exact, _ = read_located(text, label=name)
    shared, _ = read_unverified_unpositioned(text, label=name, share_registers=True)
    assert_same_module(shared, exact)
    assert write(shared) == write(exact)
    fast = compile_source(text, name)
    reference = compile(VerifiedModule.from_text(text, label=name))
    assert fast.source.text == reference.source.text
    assert (fast.vertex_code, fast.fragment_code) == (reference.vertex_code, reference.fragment_code)
    assert artifact_json(fast) == artifact_json(reference)
    assert write(fast.source.materialize()) == fast.source.text


def test_shared_reads_share_one_reference_per_spelled_path() -> None:
    """Each spelled reference path is bound once per function (verified and spelled once); paths that
    differ in any atom (field, index constant, index register) stay apart, and no path crosses functions."""
    from vpl_core.ir.instructions import LoadInstruction
    from vpl_core.text.reader import read_unverified_unpositioned

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_pipeline import helper_chain_module, wide_uniforms_module

    shared, _ = read_unverified_unpositioned(wide_uniforms_module(2000), share_registers=True)
    entry = shared.fragment.entry
    assert entry is not None
    loads = [instruction.source for instruction in entry.blocks[0].instructions
             if isinstance(instruction, LoadInstruction)]
    by_spelling: dict[str, set[int]] = {}
    for reference in loads:
        by_spelling.setdefault(write_reference(reference), set()).add(id(reference))
    assert all(len(identities) == 1 for identities in by_spelling.values())
    assert len(by_spelling) > 30  # record fields, fields of array elements, vectors: many distinct paths,
    assert len(loads) > 10 * len(by_spelling)  # each used many times
    chains, _ = read_unverified_unpositioned(helper_chain_module(600), share_registers=True)
    parameter_loads = [
        {id(instruction.source) for block in function.blocks for instruction in block.instructions
         if isinstance(instruction, LoadInstruction) and instruction.source.storage_kind.value == "parameter"}
        for function in chains.fragment.functions[1:]
    ]
    assert all(len(identities) == 2 for identities in parameter_loads)  # `value` and `amount`, once each
    assert len(set().union(*parameter_loads)) == 2 * len(parameter_loads)


def write_reference(reference: object) -> str:
    from vpl_core.text.writer import _InstructionWriter

    return _InstructionWriter({}, {}).reference(reference)  # type: ignore[arg-type]  # a ReferenceValue


@pytest.mark.parametrize("canonical", [False, True])
def test_compile_source_reads_back_and_verifies_as_publication_does(canonical: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand-written spelling: the source and its canonical text are read and the read-back verified;
    canonical source is read once (its read is the read-back). Generation runs on that verified snapshot,
    which only `compile_source` holds: no materialized copy verified a second time. The publication's
    own materializations are still verified copies (tests above; and equal to its text:
    test_compile_source_gives_what_the_exact_path_gives)."""
    import vpl_core.text.reader as reader_module
    from vpl_core.backends.glsl import compile_source
    from vpl_core.verify import Verifier

    text = SPEC_EXAMPLE.read_text(encoding="utf-8")
    if canonical:
        text = write(read(text))
    parses: list[str | None] = []
    verified: list[object] = []
    real_read_module, real_run = reader_module._Reader.read_module, Verifier.run

    def counting_read_module(self, top):  # type: ignore[no-untyped-def]
        parses.append(self.source.label)
        return real_read_module(self, top)

    def counting_run(self, checked):  # type: ignore[no-untyped-def]
        verified.append(checked)
        return real_run(self, checked)

    monkeypatch.setattr(reader_module._Reader, "read_module", counting_read_module)
    monkeypatch.setattr(Verifier, "run", counting_run)
    compile_source(text, "spec.vpl")
    assert parses == (["spec.vpl"] if canonical else ["spec.vpl", "<canonical text>"])
    assert len(verified) == 1  # the snapshot's
