"""The shape of the package (docs/architecture.md), kept true by walking every module's imports: imports point one
way, from the command line down to the foundations; a lab imports no other lab and no renderer; the results never
import the renderers. Also: every command and lab is declared once, and the command line and the Python API are
built from the same declarations."""

import ast
import dataclasses
import inspect
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import rooflab
from rooflab import api, registry
from rooflab.cli import cli
from rooflab.contract import option_fields
from rooflab.i18n import using

SRC = Path(rooflab.__file__).parent

# top to bottom: a module may import its own layer and the layers below it, never one above
LAYERS = [
    {"cli", "__main__"},
    {"api"},
    {"render"},
    {"registry"},
    {"commands", "labs"},
    {"interpret", "mpi.jobs", "diagnosis"},
    {"session", "mpi.session", "mpi"},
    {"kernels", "counters", "gpu", "userkernel"},
    {"machine"},
    {"timing", "toolchain"},
    {"model", "results", "documents"},
    {"contract", "i18n", "units", "errors", "paths"},
]
# the package's own __init__ is its front door: it may reach the API (lazily) and declares nothing itself
FACADE = "rooflab"


def unit_of(module: str) -> str:
    """The layer unit of a module: its first part under rooflab (mpi counts as two: the rank session and the
    job's aggregation are layers apart)."""
    parts = module.split(".")[1:]
    if not parts:
        return FACADE
    if parts[0] == "mpi" and len(parts) > 1:
        return f"mpi.{parts[1]}"
    return parts[0]


def layer_of(unit: str) -> int:
    for i, units in enumerate(LAYERS):
        if unit in units:
            return i
    raise AssertionError(f"{unit} is in no layer: add it to LAYERS (and to docs/architecture.md)")


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Line numbers of imports under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            for sub in node.body:
                for n in ast.walk(sub):
                    lines.add(getattr(n, "lineno", -1))
    return lines


def imports_of(path: Path) -> list[tuple[str, int]]:
    """Every rooflab module a file imports, at module level or inside a function: (module, line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree)
    me = module_name(path)
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("rooflab")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                pkg = me.split(".")[: len(me.split(".")) - node.level + (1 if path.name == "__init__.py" else 0)]
                base = ".".join(pkg + ([base] if base else []))
            if not base.startswith("rooflab"):
                continue
            for a in node.names:  # `from rooflab.labs import ladder` imports rooflab.labs.ladder
                sub = SRC.joinpath(*base.split(".")[1:], a.name)
                is_module = sub.with_suffix(".py").exists() or (sub / "__init__.py").exists()
                out.append((f"{base}.{a.name}" if is_module else base, node.lineno))
    return out


MODULES = sorted(p for p in SRC.rglob("*.py"))


def violations(paths=MODULES) -> list[str]:
    bad = []
    for path in paths:
        me = module_name(path)
        mu = unit_of(me)
        if mu == FACADE:
            continue
        for target, line in imports_of(path):
            tu = unit_of(target)
            where = f"{path.relative_to(SRC)}:{line} imports {target}"
            if tu == FACADE:
                if layer_of(mu) > 0:  # only the command line reads the package's own attributes (its version)
                    bad.append(f"{where}: import the module, not the package's front door")
                continue
            if layer_of(tu) < layer_of(mu):
                bad.append(f"{where}: {mu} may not import {tu}, a layer above it")
            if mu == "labs" and tu == "labs":
                bad.append(f"{where}: a lab imports no other lab (share code through kernels or model)")
            if mu == "commands" and tu == "commands":
                mine, theirs = me.split(".")[:3], target.split(".")[:3]
                if mine != theirs:
                    bad.append(f"{where}: a command imports no other command (only its own package's modules)")
    return bad


def test_imports_point_one_way():
    assert violations() == []


def test_the_check_sees_a_violation(tmp_path, monkeypatch):
    """The rule test itself: a lab importing another lab, a renderer or the CLI is caught."""
    fake = SRC / "labs" / "fma.py"
    text = fake.read_text(encoding="utf-8")
    bad = tmp_path / "rooflab" / "labs" / "fma.py"
    bad.parent.mkdir(parents=True)
    (bad.parent / "ladder.py").write_text("", encoding="utf-8")
    bad.write_text(text + "\nfrom rooflab.labs import ladder\nfrom rooflab.render.tables import cell\n"
                   "def f():\n    import rooflab.cli\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path / "rooflab")
    found = violations([bad])
    assert any("a lab imports no other lab" in v for v in found)
    assert any("labs may not import render" in v for v in found)
    assert any("labs may not import cli" in v for v in found)


# the only imports made inside functions: optional dependencies that are heavy or absent on most machines, imported
# where they are used; the package's front door, which loads the API on first use (the worker imports rooflab too);
# and the worker's own, which come after it has set the environment its tasks run in
OPTIONAL = {"matplotlib", "cupy", "cupy_backends", "pynvml", "torch", "mpi4py", "ruptures"}
LAZY_BY_DESIGN = {("__init__.py", "rooflab"), ("timing/worker.py", "numpy"), ("timing/worker.py", "threadpoolctl"),
                  ("timing/worker.py", "rooflab.toolchain.compiler")}
MAX_FUNCTION_IMPORTS = 15


def function_imports(paths=MODULES) -> list[tuple[str, str, int]]:
    """(file, module, line) of every import statement inside a function."""
    out = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for f in ast.walk(tree):
            if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for n in ast.walk(f):
                if isinstance(n, ast.Import):
                    out.append((path.relative_to(SRC).as_posix(), n.names[0].name, n.lineno))
                elif isinstance(n, ast.ImportFrom):
                    out.append((path.relative_to(SRC).as_posix(), n.module or "", n.lineno))
    return sorted(set(out))


def test_imports_are_at_the_top_but_for_optional_heavy_dependencies():
    found = function_imports()
    odd = [f"{f}:{line} imports {m} inside a function" for f, m, line in found
           if m.split(".")[0] not in OPTIONAL and (f, m) not in LAZY_BY_DESIGN]
    assert odd == [], "import these at the top of the module:\n" + "\n".join(odd)
    assert len(found) <= MAX_FUNCTION_IMPORTS, found


def test_every_unit_has_a_layer():
    units = {unit_of(module_name(p)) for p in MODULES} - {FACADE}
    for u in units:
        layer_of(u)


# ------------------------------------------------------------------------------------------------ the registry


def test_every_lab_is_one_declared_module():
    labs = registry.labs()
    modules = {p.stem for p in (SRC / "labs").glob("*.py") if p.stem != "__init__"}
    assert set(labs) == modules  # a module in labs/ is a lab, and a lab is a module there
    assert [c.order for c in labs.values()] == sorted(c.order for c in labs.values())
    for c in labs.values():
        assert c.group == "lab" and c.kind == f"lab.{c.name}" and c.report.interpret is not None and c.report.tables


def test_cli_and_api_are_generated_from_the_same_options():
    every = [*registry.commands().values(), *registry.labs().values()]
    for c in every:
        if not c.cli:
            continue
        group = cli.get_command(None, "lab") if c.group == "lab" else cli
        click_cmd = group.get_command(None, c.name)
        names = {p.name for p in click_cmd.params}
        for f in option_fields(c.options, ("both", "cli")):
            assert f.name in names, f"{c.title}: --{f.name} missing from the command line"
        fn = getattr(api.lab, c.name) if c.group == "lab" else getattr(api, c.name)
        params = inspect.signature(fn).parameters
        for f in option_fields(c.options, ("both", "api")):
            assert f.name in params, f"{c.title}: {f.name} missing from the Python API"
            assert params[f.name].default == (inspect.Parameter.empty if f.default is dataclasses.MISSING
                                              else f.default)


def test_the_api_checks_options_as_the_cli_does():
    with pytest.raises(rooflab.RooflabError, match="not one of fp32, fp64"):
        api.lab("fma", precision="fp16")
    with pytest.raises(rooflab.RooflabError, match="unexpected keyword argument .chains."):
        api.lab("fma", chains=3)
    with pytest.raises(rooflab.RooflabError, match="below its least value"):
        api.lab.imbalance(threads=1)
    with pytest.raises(rooflab.RooflabError, match="expected a whole number"):
        api.lab.loops(n=1.5)
    result = CliRunner().invoke(cli, ["lab", "fma", "--precision", "fp16"])
    assert result.exit_code == 2 and "fp16" in result.output


NEW_LAB = '''
from dataclasses import dataclass

from rooflab.contract import Column, Lab, Report, Table, option, quick_option
from rooflab.i18n import msg, tr


@dataclass(frozen=True)
class Options:
    quick: bool = quick_option()
    steps: int = option(3, min=1, max=10, help="How many steps.")


def run(session, opts):
    rows = [{"step": i, "value": float(i * i)} for i in range(1, opts.steps + 1)]
    session.record("steps", {"n": len(rows)})
    return {"lab": "squares", "quick": opts.quick, "rows": rows}


def interpret(doc):
    return [msg("The last of {n} steps squares to {v:g}.", n=len(doc["rows"]), v=doc["rows"][-1]["value"])]


LAB = Lab(name="squares", order=99, options=Options, run=run, summary=msg("squares of the first steps"),
          report=Report(interpret=interpret, headline=lambda d: tr("{n} steps", n=len(d["rows"])),
                        tables=(Table("squares_rows", "Squares", rows="rows",
                                      columns=(Column("step", "step", "int"), Column("value", "square", "g"))),)),
          translations={"zh": {"squares of the first steps": "前几步的平方", "{n} steps": "{n} 步",
                               "The last of {n} steps squares to {v:g}.": "{n} 步中最后一步的平方是 {v:g}。",
                               "Squares": "平方", "step": "步", "square": "平方值"}})
'''


@pytest.fixture
def new_lab(tmp_path, monkeypatch):
    """A lab added the way a contributor adds one: one module in the labs package, nothing else edited."""
    from rooflab import labs
    from rooflab.i18n import CATALOGS
    from rooflab.results import schema

    folder = tmp_path / "more_labs"
    folder.mkdir()
    (folder / "squares.py").write_text(NEW_LAB, encoding="utf-8")
    saved_zh, saved_kinds = dict(CATALOGS["zh"].added), dict(schema.CURRENT)
    monkeypatch.setattr(labs, "__path__", [*labs.__path__, str(folder)])
    registry.reset()
    yield registry.lab("squares")
    registry.reset()
    sys.modules.pop("rooflab.labs.squares", None)
    CATALOGS["zh"].added.clear()
    CATALOGS["zh"].added.update(saved_zh)
    schema.CURRENT.clear()
    schema.CURRENT.update(saved_kinds)


def test_a_new_lab_is_one_module(new_lab, tmp_path):
    import json

    from rooflab.cli import command_of

    store = str(tmp_path / "s.sqlite")
    cmd = command_of(new_lab)  # the command line `rooflab lab squares` gets, from the declaration alone
    assert "--steps" in CliRunner().invoke(cmd, ["--help"]).output
    out = CliRunner().invoke(cmd, ["--steps", "4", "--json", "--store", store, "--csv", str(tmp_path / "csv")])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["schema"] == "rooflab.lab.squares/1" and len(doc["rows"]) == 4 and doc["run_id"]
    assert doc["observations"][0]["text"] == "The last of 4 steps squares to 16."
    assert (tmp_path / "csv" / "squares_rows.csv").read_text().splitlines()[0] == "step,value"
    with using("en"):  # (the language the command sets ends with the block, as rooflab's main() does)
        report = CliRunner().invoke(cmd, ["--steps", "2", "--store", store, "--lang", "zh"]).output
    assert "rooflab lab squares · 2 步" in report and "平方值" in report and "2 步中最后一步的平方是 4。" in report
    assert CliRunner().invoke(cmd, ["--steps", "11"]).exit_code == 2  # its option's range, checked by the CLI
    py = api.lab.squares(steps=3, store=store)  # and the Python function, with the same options
    assert py["rows"][-1]["value"] == 9.0 and "steps" in inspect.signature(api.lab.squares).parameters
    shown = CliRunner().invoke(cli, ["show", str(py["run_id"]), "--store", store, "--lang", "en"]).output
    assert "Squares" in shown and "The last of 3 steps squares to 9." in shown
    # its documents are checked against the envelope every lab has, which `rooflab schema` publishes for it
    listed = json.loads(CliRunner().invoke(cli, ["schema", "lab.squares", "--json"]).stdout)
    assert listed["id"] == "rooflab.lab.squares/1" and "lab" in listed["json_schema"]["required"]


def test_one_thread_limit_for_the_c_kernels_and_the_options():
    import re

    from rooflab.paths import MAX_THREADS

    header = (SRC / "csrc" / "rl_parallel.h").read_text(encoding="utf-8")
    assert int(re.search(r"#define RL_MAX_THREADS (\d+)", header).group(1)) == MAX_THREADS
    for f in sorted((SRC / "csrc").glob("*.[ch]")):  # no kernel keeps a limit of its own
        if f.name != "rl_parallel.h":
            assert not re.search(r"#define \w*THREADS\w* \d+", f.read_text(encoding="utf-8")), f.name
    measure_threads = next(f for f in option_fields(registry.command("measure").options) if f.name == "threads")
    assert measure_threads.opt.max == MAX_THREADS


def test_a_command_is_loaded_alone():
    """`rooflab bench` imports the bench command and no other; a document kind, or an API function, its own
    command's module; only a listing imports them all."""
    import subprocess

    probe = """
import sys
from rooflab.cli import main
from rooflab.results import schema
try:
    main(["bench", "--help"])
except SystemExit:
    pass
import rooflab
rooflab.explain
schema.migrate({"schema": "rooflab.lab.fma/1"})
schema.schema_id("compare")
loaded = sorted(m for m in sys.modules if m.startswith(("rooflab.commands.", "rooflab.labs.")))
print("LOADED", " ".join(loaded))
from rooflab import registry
print("ALL", len(registry.commands()), len(registry.labs()), registry.command("history").kind)
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if line.startswith(("LOADED", "ALL")))
    assert lines["LOADED"].split() == ["rooflab.commands.bench", "rooflab.commands.compare",
                                       "rooflab.commands.explain", "rooflab.labs.fma"]
    n_commands, n_labs, history_kind = lines["ALL"].split()
    assert int(n_commands) == len(registry.commands()) and int(n_labs) == len(registry.labs())
    assert history_kind == "history"  # a command whose module is named otherwise (stored.py) is found too


_BAD_LAB = """
from dataclasses import dataclass

from rooflab.contract import Command, Lab
from rooflab.i18n import msg


@dataclass(frozen=True)
class Options:
    pass


LAB = {declaration}(name="{name}", order=98, options=Options, run=lambda session, opts: {{}}, summary=msg("x"){more})
"""
BAD_LABS = {"same_kind": _BAD_LAB.format(declaration="Lab", name="same_kind", more=', kind="lab.fma"'),
            "not_a_lab": _BAD_LAB.format(declaration="Command", name="not_a_lab", more="")}


@pytest.mark.parametrize("name, says", [("same_kind", "rooflab lab same_kind and rooflab lab fma both write "
                                                      "documents of kind lab.fma"),
                                        ("not_a_lab", "not_a_lab is declared as a command, not a lab")])
def test_the_registry_refuses_a_lab_that_breaks_its_rules(name, says, tmp_path, monkeypatch):
    from rooflab import labs
    from rooflab.results import schema

    folder = tmp_path / "bad_labs"
    folder.mkdir()
    (folder / f"{name}.py").write_text(BAD_LABS[name], encoding="utf-8")
    saved_kinds = dict(schema.CURRENT)
    monkeypatch.setattr(labs, "__path__", [*labs.__path__, str(folder)])
    registry.reset()
    try:
        registry.lab("fma")  # the good lab alone still loads
        with pytest.raises(rooflab.RooflabError, match=says):
            registry.labs()
    finally:
        registry.reset()
        sys.modules.pop(f"rooflab.labs.{name}", None)
        schema.CURRENT.clear()
        schema.CURRENT.update(saved_kinds)


# ------------------------------------------------------------------------------------------------ the documents


def _keyed(node) -> ast.AST | None:
    """What ``node`` reads a named field of (``x["name"]``, ``x.get("name", ...)``; ``(x or {})`` is x), or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        inner = node.value
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
          and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        inner = node.func.value
    else:
        return None
    return inner.values[0] if isinstance(inner, ast.BoolOp) and isinstance(inner.op, ast.Or) else inner


def nested_reads(paths) -> list[str]:
    """``file:line expression`` of every read of a named field of a named field (``doc["a"]["b"]``,
    ``(doc.get("a") or {}).get("b")``): where a document's parts lie is known to its model, in ``documents/``."""
    out = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            inner = _keyed(node)
            if inner is not None and _keyed(inner) is not None:
                out.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return out


def test_outside_the_document_models_no_module_reads_nested_fields():
    outside = [p for p in MODULES if "documents" not in p.relative_to(SRC).parts]
    found = nested_reads(outside)
    assert found == [], ("read the part through its model (documents.common.read) or an accessor in documents/:\n"
                         + "\n".join(found))


def test_the_nested_read_check_sees_each_form(tmp_path):
    src = tmp_path / "reader.py"
    src.write_text('a = doc["mpi"]["size"]\nb = (doc.get("roofs") or {}).get("threads")\n'
                   'c = doc["machine"].get("caches")\nd = doc.get("x")\ne = read(Roofs, doc.get("roofs")).threads\n',
                   encoding="utf-8")
    found = nested_reads([src])
    assert [f.split(" ")[0] for f in found] == ["reader.py:1", "reader.py:2", "reader.py:3"]
