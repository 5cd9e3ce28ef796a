"""The `(extensions "math")` declaration, strict version-1 mode, and the writer's use of the declaration.

Rules under test (docs/vpl-math-extension.md, "Declaring the extension"):

* a module without the declaration is plain VPL 1, read and written exactly
  as the specification says;
* a math operation without the declaration is a semantic error at the
  operation's name; an unknown or duplicate extension name is a semantic
  error at that name; a second `extensions` form is a syntactic error;
* the writer declares the extension exactly when some function of the module
  (used or not, reachable or not) has a math operation;
* strict version-1 mode (`read(..., strict_v1=True)`, `vpl check
  --strict-v1`, `vpl fmt --strict-v1`) rejects the declaration itself and
  math operation names as syntactic errors.

Each rejection is checked for its category, line, column and message.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from math_support import MATH_OPERATIONS, Function, accepted_combinations, call_function, module_text, position_of

from vpl_core import cli
from vpl_core.diagnostics import Category, SemanticError, SyntacticError, VplError
from vpl_core.ir import VOID, Builtin, Module, Semantic, StageBuilder, vec
from vpl_core.text import STRICT_V1_EXTENSIONS_MESSAGE, read, write

MISSING_DECLARATION = "is a math extension operation: the module must declare (extensions \"math\") after its version"
STRICT_OPERATION = "math extension operations are not part of VPL version 1 (strict mode)"

PLAIN_BODY = Function([("r1", "vec4")], ["(construct r1 (float 0.25))", "(add r1 r1 r1)"])
MATH_BODY = Function([("r1", "vec4")], ["(construct r1 (float 0.25))", "(sin r1 r1)"])


def _error(text: str, *, strict_v1: bool = False) -> VplError:
    with pytest.raises(VplError) as caught:
        read(text, label="case.vpl", strict_v1=strict_v1)
    return caught.value


def _assert_diagnostic(error: VplError, category: Category, where: tuple[int, int], gist: str) -> None:
    diagnostic = error.diagnostic
    assert diagnostic.category is category, diagnostic.format()
    assert (diagnostic.line, diagnostic.column) == where, diagnostic.format()
    assert gist in diagnostic.message, diagnostic.format()
    assert diagnostic.label == "case.vpl"


# Plain VPL 1 -------------------------------------------------------------------------------


def test_module_without_declaration_is_plain_vpl1_in_both_modes() -> None:
    text = module_text(PLAIN_BODY, extension=None)
    canonical = write(read(text))
    assert canonical == write(read(text, strict_v1=True))
    assert "extensions" not in canonical
    assert write(read(canonical, strict_v1=True)) == canonical


@pytest.mark.parametrize("declaration", ['(extensions "math")', "(extensions)"])
def test_unused_declaration_is_accepted_and_not_written(declaration: str) -> None:
    canonical = write(read(module_text(PLAIN_BODY, extension=declaration)))
    assert "extensions" not in canonical
    # The writer's output is plain version 1, so the strict reader takes it.
    assert write(read(canonical, strict_v1=True)) == canonical


def test_writer_declares_the_extension_exactly_when_an_operation_is_used() -> None:
    canonical = write(read(module_text(MATH_BODY)))
    assert canonical.splitlines()[:2] == ["(module 1", '  (extensions "math")']
    assert canonical.count("extensions") == 1


def test_operation_in_an_unused_helper_still_needs_and_gets_the_declaration() -> None:
    helper = (
        '(function helper "helper" Float (parameters) (registers (register r0 Float)) '
        "(block entry (exp2 r0 (float 3.0)) (return r0)))"
    )
    canonical = write(read(module_text(PLAIN_BODY, fragment_helpers=[helper])))
    assert '(extensions "math")' in canonical and "(exp2 r0 (float 3.0))" in canonical
    error = _error(module_text(PLAIN_BODY, extension=None, fragment_helpers=[helper]))
    assert isinstance(error, SyntacticError)
    assert "unknown instruction 'exp2': it " + MISSING_DECLARATION in error.diagnostic.message


def _built_module(builtin: Builtin | None) -> Module:
    """A module made with the IR builder (no text involved); its fragment colour passes through `builtin`."""
    module = Module()
    vertex = StageBuilder(module.vertex)
    position = vertex.output("position", vec(4), semantic=Semantic.POSITION)
    vertex_main = vertex.function("vertex_main", VOID, entry=True)
    vertex_main.store(position, vertex_main.construct(vec(4), vertex_main.f(1.0)))
    vertex_main.ret()
    fragment = StageBuilder(module.fragment)
    color = fragment.output("color", vec(4), location=0, semantic=Semantic.FRAGMENT_COLOR)
    fragment_main = fragment.function("fragment_main", VOID, entry=True)
    value = fragment_main.construct(vec(4), fragment_main.f(0.5))
    if builtin is not None:
        value = fragment_main.call_builtin(builtin, vec(4), value)
    fragment_main.store(color, value)
    fragment_main.ret()
    return module


def test_builder_made_module_gets_the_declaration_from_the_writer() -> None:
    with_math = write(_built_module(Builtin.FRACT))
    assert with_math.splitlines()[1] == '  (extensions "math")' and "(fract r1 r0)" in with_math
    plain = write(_built_module(None))
    assert "extensions" not in plain
    assert write(read(plain, strict_v1=True)) == plain
    assert write(read(with_math)) == with_math


# Missing, unknown, duplicate ---------------------------------------------------------------


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_operation_without_declaration_is_an_unknown_instruction_at_its_name(operation: str) -> None:
    """Spec 10.2, 11: without the declaration it is no VPL 1 instruction, a syntactic error (with the hint)."""
    arguments, result = accepted_combinations(operation)[0]
    body, instruction = call_function(operation, arguments, result)
    text = module_text(body, extension=None)
    line, column = position_of(text, instruction)
    error = _error(text)
    assert isinstance(error, SyntacticError)
    _assert_diagnostic(
        error, Category.SYNTACTIC, (line, column + 1), f"unknown instruction '{operation}': it {MISSING_DECLARATION}"
    )
    # Declaring the extension is the whole fix.
    read(module_text(body))


@pytest.mark.parametrize(
    ("declaration", "bad", "gist"),
    [
        ('(extensions "fancy")', '"fancy"', 'unknown extension "fancy" (known: "math")'),
        ('(extensions "Math")', '"Math"', 'unknown extension "Math"'),  # names are case-sensitive
        ('(extensions "math " )', '"math "', 'unknown extension "math "'),
        ('(extensions "math" "fancy")', '"fancy"', 'unknown extension "fancy"'),
        ('(extensions "math" "math")', '"math")', 'duplicate extension "math"'),
        ("(extensions \"math\" 'math')", "'math'", 'duplicate extension "math"'),
    ],
)
def test_unknown_and_duplicate_extension_names_are_semantic_errors(declaration: str, bad: str, gist: str) -> None:
    text = module_text(MATH_BODY, extension=declaration)
    line, column = position_of(text, declaration)
    error = _error(text)
    assert isinstance(error, SemanticError)
    _assert_diagnostic(error, Category.SEMANTIC, (line, column + declaration.index(bad, 12)), gist)


@pytest.mark.parametrize(
    ("declaration", "bad", "gist"),
    [
        # A second form is not "the extensions form": the module expects its types section there.
        ('(extensions "math") (extensions "math")', 'extensions "math")', "expected (types {type}), found name"),
        ("(extensions math)", "math)", "expected an extension name (a quoted string)"),
        ("(extensions (math))", "(math)", "expected an extension name (a quoted string)"),
        ("(extensions 1)", "1)", "expected an extension name (a quoted string)"),
    ],
)
def test_malformed_declarations_are_syntactic_errors(declaration: str, bad: str, gist: str) -> None:
    text = module_text(MATH_BODY, extension=declaration)
    line, column = position_of(text, declaration)
    error = _error(text)
    assert isinstance(error, SyntacticError)
    _assert_diagnostic(error, Category.SYNTACTIC, (line, column + declaration.index(bad, 2)), gist)


def test_declaration_after_the_types_section_is_a_syntactic_error() -> None:
    text = module_text(MATH_BODY, extension=None).replace(
        '  (uniforms (scalar tex "tex" Sampler))', '  (extensions "math")\n  (uniforms (scalar tex "tex" Sampler))'
    )
    error = _error(text)
    assert isinstance(error, SyntacticError)
    _assert_diagnostic(error, Category.SYNTACTIC, position_of(text, 'extensions "math")'), "expected (uniforms")


# Strict version-1 mode ---------------------------------------------------------------------


@pytest.mark.parametrize("declaration", ['(extensions "math")', "(extensions)", '(extensions "fancy")'])
def test_strict_mode_rejects_any_declaration_at_the_form(declaration: str) -> None:
    for body in (PLAIN_BODY, MATH_BODY):
        text = module_text(body, extension=declaration)
        error = _error(text, strict_v1=True)
        assert isinstance(error, SyntacticError)
        _assert_diagnostic(error, Category.SYNTACTIC, position_of(text, declaration), STRICT_V1_EXTENSIONS_MESSAGE)


@pytest.mark.parametrize("operation", MATH_OPERATIONS)
def test_strict_mode_rejects_operation_names_as_unknown_instructions(operation: str) -> None:
    arguments, result = accepted_combinations(operation)[0]
    body, instruction = call_function(operation, arguments, result)
    text = module_text(body, extension=None)
    line, column = position_of(text, instruction)
    error = _error(text, strict_v1=True)
    assert isinstance(error, SyntacticError)
    _assert_diagnostic(
        error, Category.SYNTACTIC, (line, column + 1), f"unknown instruction '{operation}': {STRICT_OPERATION}"
    )


def test_strict_mode_still_accepts_texture() -> None:
    body = Function(
        [("r1", "vec4"), ("r2", "sampler2D"), ("r3", "vec2")],
        ["(load r2 (uniform tex))", "(construct r3 (float 0.5))", "(texture r1 r2 r3)"],
    )
    text = module_text(body, extension=None)
    assert write(read(text, strict_v1=True)) == write(read(text))


# The command line --------------------------------------------------------------------------


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    plain = tmp_path / "plain.vpl"
    plain.write_text(module_text(PLAIN_BODY, extension=None), encoding="utf-8")
    with_math = tmp_path / "with-math.vpl"
    with_math.write_text(module_text(MATH_BODY), encoding="utf-8")
    undeclared = tmp_path / "undeclared.vpl"
    undeclared.write_text(module_text(MATH_BODY, extension=None), encoding="utf-8")
    return plain, with_math, undeclared


def test_cli_check_accepts_the_extension_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain, with_math, _ = _files(tmp_path)
    assert cli.main(["check", str(plain), str(with_math)]) == 0
    assert capsys.readouterr().err == ""


def test_cli_check_strict_v1_rejects_the_declaration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain, with_math, _ = _files(tmp_path)
    assert cli.main(["check", "--strict-v1", str(plain), str(with_math)]) == 1
    err = capsys.readouterr().err
    line, column = position_of(with_math.read_text(encoding="utf-8"), '(extensions "math")')
    assert err == f"{with_math}:{line}:{column}: syntactic error: {STRICT_V1_EXTENSIONS_MESSAGE}\n"
    assert cli.main(["check", "--strict-v1", str(plain)]) == 0


def test_cli_check_reports_a_missing_declaration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, undeclared = _files(tmp_path)
    assert cli.main(["check", str(undeclared)]) == 1
    err = capsys.readouterr().err
    line, column = position_of(undeclared.read_text(encoding="utf-8"), "(sin r1 r1)")
    assert err == f"{undeclared}:{line}:{column + 1}: syntactic error: unknown instruction 'sin': it {MISSING_DECLARATION}\n"
    assert cli.main(["check", "--strict-v1", str(undeclared)]) == 1
    err = capsys.readouterr().err
    assert err == f"{undeclared}:{line}:{column + 1}: syntactic error: unknown instruction 'sin': {STRICT_OPERATION}\n"


def test_cli_fmt_writes_the_declaration_and_honours_strict_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, with_math, _ = _files(tmp_path)
    assert cli.main(["fmt", str(with_math)]) == 0
    out = capsys.readouterr().out
    assert out == write(read(with_math.read_bytes()))
    assert out.splitlines()[1] == '  (extensions "math")'
    assert cli.main(["fmt", "--strict-v1", str(with_math)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and STRICT_V1_EXTENSIONS_MESSAGE in captured.err
    assert cli.main(["fmt", "--strict-v1", str(plain)]) == 0
    assert "extensions" not in capsys.readouterr().out


def test_strict_mode_is_documented_in_the_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("check", "fmt"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert "--strict-v1" in capsys.readouterr().out
