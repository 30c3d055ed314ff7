"""The package table of DESIGN.md §1 is a test: who may import whom, and no import cycles.

The graph is read from the source (``ast``), so an import hidden inside a function counts as
much as one at the top of a module: a lazy import is still a dependency. Imports under
``if TYPE_CHECKING:`` do not count — they exist only for the type checker (a command typed
``session: Session`` does not make ``commands`` depend on ``session`` at run time).

Two checks: every module-to-module edge between our packages is one the table allows, and the
module graph has no cycle (each strongly connected component is one module). A cycle is
reported as its modules, an illegal edge as ``importer -> imported``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ksandbox"

# DESIGN.md §1: a package (or top-level module) of ksandbox -> what of ours it may import.
# api and sim are the floor; apiserver sits on them; scheduler, controllers and kubelet sit on
# those three and never import each other; commands, views and recording sit above; the
# control plane and the session wire everything; tui and cli are on top.
CORE = {"api", "apiserver", "sim", "gcpolicy"}
WORKERS = {"scheduler", "controllers", "kubelet"}
ALLOWED: dict[str, set[str]] = {
    "gcpolicy": set(),                       # process GC tuning: a leaf
    "stamped_file": set(),                   # a table kept on disk like bytecode: a leaf
    "regex_cache": {"stamped_file"},         # compiled regexes kept on disk
    "code_cache": {"stamped_file"},          # code compiled from generated source
    "sim": set(),
    "api": {"gcpolicy"},
    "apiserver": {"api", "sim", "gcpolicy"},
    "scheduler": CORE,
    "controllers": CORE,
    "kubelet": CORE,
    "resources": {"api"},                    # where the shipped samples and themes are
    "views": CORE | WORKERS,
    "commands": CORE | WORKERS | {"views"},
    "controlplane": CORE | WORKERS | {"commands"},
    # The session replays through recording's playback loop; recording builds sessions. Both
    # directions are allowed between the packages, never a cycle between modules.
    "session": CORE | WORKERS | {"commands", "views", "controlplane", "recording"},
    "recording": CORE | WORKERS | {"commands", "views", "controlplane", "session", "resources"},
    "cli": CORE | WORKERS | {"commands", "views", "controlplane", "session", "recording",
                             "resources", "tui", "regex_cache", "code_cache"},
    "tui": CORE | WORKERS | {"commands", "views", "controlplane", "session", "recording",
                             "resources", "regex_cache", "code_cache"},
    "__main__": {"cli"},
}


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        mods[".".join(parts)] = (path, is_pkg)
    return mods


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else \
                test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for inner in node.body:
                    skip.update(id(n) for n in ast.walk(inner))
    return skip


def import_graph() -> dict[str, set[str]]:
    """module -> the ksandbox modules it imports (a ``from pkg import name`` of a submodule
    is an edge to the submodule; of a name, to the package)."""
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for mod, (path, is_pkg) in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_only(tree)
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == "ksandbox")
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    base = node.module or ""
                else:
                    pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    pkg = pkg[:len(pkg) - (node.level - 1)]
                    base = ".".join(pkg + ([node.module] if node.module else []))
                if base.split(".")[0] != "ksandbox":
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found.add(sub if sub in mods else base)
        graph[mod] = {m for m in found if m in mods and m != mod}
    return graph


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ksandbox"


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_cycles():
    assert strongly_connected(import_graph()) == []


def test_the_cycle_check_can_fail():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_every_package_is_in_the_table():
    tops = {_top(m) for m in import_graph()} - {"ksandbox"}
    assert tops - set(ALLOWED) == set()


def test_packages_import_only_what_design_allows():
    offenders = sorted(
        f"{mod} -> {dep}"
        for mod, deps in import_graph().items()
        for dep in deps
        if _top(mod) != _top(dep) and _top(dep) != "ksandbox"
        and _top(dep) not in ALLOWED.get(_top(mod), set()))
    assert offenders == []


def test_workers_never_import_each_other():
    """scheduler, controllers and kubelet talk through the store (and what the control plane
    hands them), never by importing one another."""
    for a in WORKERS:
        assert not (ALLOWED[a] & WORKERS), a


# Upstream composes its big components of parts the owner holds (pkg/kubelet/kubelet.go:
# statusManager, podWorkers, evictionManager...; the cluster autoscaler's StaticAutoscaler:
# scale-up orchestrator, scale-down planner and actuator); a mixin hides which part uses which
# state. None is left; a new one needs a reason here.
MIXINS_LEFT: set[str] = set()


def _mixin_classes() -> set[str]:
    names = set()
    for path, _pkg in _modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin"):
                names.add(node.name)
    return names


def test_components_are_composed_of_parts_not_mixins():
    assert _mixin_classes() <= MIXINS_LEFT
