"""The package's layout: one folder per game, no game importing another, no
import circles (read from the source, so it holds in both backend modes)."""

from __future__ import annotations

import ast
from pathlib import Path

import fourcards
from fourcards._backend import EXTENSIONS

PACKAGE = Path(fourcards.__file__).parent
GAMES = ("gangoffour", "fourcolor", "zangle", "fourpack", "duelo")
#: Modules that list every game and may import any of them.
EVERY_GAME = ("fourcards.cli", "fourcards.games", "fourcards.tournament", "fourcards.benchmarks",
              "fourcards.server", "fourcards.rl")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """The fourcards modules ``name`` imports, at any depth of its code."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # ``from package import module`` names the module itself
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in MODULES and t != name)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def test_the_graph_is_read() -> None:
    assert "fourcards.gangoffour._kernels" in GRAPH["fourcards.gangoffour.cards"]
    assert "fourcards.bots" in GRAPH["fourcards.zangle.bots"]


def test_no_import_circles() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in GRAPH[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in GRAPH:
        if name not in index:
            visit(name)
    assert cycles == []


def test_no_game_imports_another_game() -> None:
    crossings = []
    for name, targets in GRAPH.items():
        if name.startswith(EVERY_GAME):
            continue
        own = (name.split(".") + [""])[1]
        for target in targets:
            game = (target.split(".") + [""])[1]
            if game in GAMES and game != own:
                crossings.append(f"{name} -> {target}")
    assert crossings == []


def test_each_compiled_game_keeps_its_kernels_beside_its_twin() -> None:
    """Every compiled module (one per concern) is in its game's folder, with its stub."""
    for name in EXTENSIONS:
        *folders, module = name.split(".")[1:]
        folder = PACKAGE.joinpath(*folders)
        assert ((folder / f"{module}.pyx").exists() or list(folder.glob(f"{module}.*.so"))
                or list(folder.glob(f"{module}.*.pyd"))), name
        assert (folder / f"{module}.pyi").exists(), name
    for game in ("gangoffour", "fourcolor"):
        assert (PACKAGE / game / f"_{'gof' if game == 'gangoffour' else 'fc'}.pxd").exists()  # the shared header
    for game in ("gangoffour", "fourcolor"):
        assert (PACKAGE / game / "_kernels.py").exists() and (PACKAGE / game / "_reference.py").exists()
