"""The layering rule of docs/architecture.md, checked on the source: a package imports only
packages of lower layers, and the light commands do not import heavy libraries at start-up."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from tests.helpers import modules_loaded_by

ROOT = Path(__file__).resolve().parents[1] / "planproof"
ORDER = [
    "boundary",
    "executor",
    "ltl",
    "data",
    "pddl",
    "simulators",
    "interface",
    "metrics",
    "runs",
    "report",
    "commands",
    "cli",
    "testing",
]


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "planproof" or len(parts) < 2:
        return None
    return ORDER.index(parts[1]) if parts[1] in ORDER else None


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
    return out


def _source_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if "examples" not in p.parts)


def test_every_module_belongs_to_a_layer() -> None:
    for path in _source_files():
        rel = path.relative_to(ROOT).with_suffix("")
        if rel.parts in {("__init__",)}:
            continue
        assert _layer("planproof." + ".".join(rel.parts)) is not None, path


@pytest.mark.parametrize("path", _source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_respect_layers(path: Path) -> None:
    rel = path.relative_to(ROOT).with_suffix("")
    own = _layer("planproof." + ".".join(rel.parts))
    if own is None:
        return
    for mod in _imports(path):
        layer = _layer(mod)
        if layer is not None:
            assert layer <= own, f"{path.name} (layer {ORDER[own]}) imports {mod}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module → the planproof modules it imports anywhere in its text (at the top, in a
    function, under ``TYPE_CHECKING``): a name imported from a package is an edge to the
    package's ``__init__`` unless it names one of its modules."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    sub = f"{node.module}.{a.name}"
                    targets.add(sub if sub in modules else node.module)
        graph[name] = {
            o for t in targets if t.startswith("planproof.") and (o := owner(t)) not in (None, name)
        }
    return graph


def test_no_import_circle() -> None:
    """No module of planproof imports, even lazily inside a function, one that imports it
    back through any chain: a lazy import only hides a circle (planproof/report once had a
    four-module one), and the next top-level import turns it into an ImportError."""
    try:
        TopologicalSorter(_import_graph()).prepare()
    except CycleError as exc:
        pytest.fail("import circle: " + " -> ".join(exc.args[1]))


def test_the_circle_check_sees_a_lazy_circle() -> None:
    """The check itself: a function-level import closing a circle is one."""
    graph = _import_graph()
    graph["planproof.ltl.nnf"].add("planproof.pddl.ground")  # as if nnf imported it lazily
    with pytest.raises(CycleError):
        TopologicalSorter(graph).prepare()
    assert "planproof.ltl.nnf" in graph["planproof.pddl.ground"]  # a real edge is seen


def test_parsing_does_not_import_heavy_libraries() -> None:
    loaded = modules_loaded_by(
        "from planproof.cli import main\nmain(['ltl', 'parse', 'p(a.1) then q()'])"
    )
    for heavy in ("z3", "scipy", "numpy", "litellm", "unified_planning", "rich", "ray", "pebble"):
        assert heavy not in loaded, f"`planproof ltl parse` imported {heavy}"


@pytest.mark.data
@pytest.mark.usefixtures("eai_wheel")
@pytest.mark.parametrize(
    ("argv", "absent"),
    [
        (
            ["evaluate", "action-sequencing", "--dataset", "virtualhome", "--limit", "3"],
            ("litellm", "openai", "unified_planning", "z3", "ray"),
        ),
        (["demo", "--limit", "3", "--concurrency", "1"], ("litellm", "openai", "ray")),
        (
            [
                "run",
                "--model",
                "gold",
                "--module",
                "goal-interpretation",
                "--dataset",
                "virtualhome",
                "--limit",
                "2",
                "--concurrency",
                "1",
            ],
            ("litellm", "openai", "ray"),
        ),
    ],
    ids=["evaluate", "demo", "run-builtin"],
)
def test_commands_do_not_pay_for_what_they_do_not_use(
    argv: list[str], absent: tuple[str, ...], tmp_path: Path
) -> None:
    argv = [*argv, "--output", str(tmp_path / "out")]
    if argv[0] != "evaluate":
        argv += ["--cache", str(tmp_path / "c.sqlite3")]
    loaded = modules_loaded_by(f"from planproof.cli import main\nmain({argv!r})")
    for heavy in absent:
        assert heavy not in loaded, f"`planproof {' '.join(argv[:2])}` imported {heavy}"
