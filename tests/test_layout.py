"""The package's layout: one folder per game, no game importing another, no
import circles, and no game named in the modules every game shares (read from
the source, so it holds in both backend modes)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import fourcards
from fourcards._backend import EXTENSIONS
from fourcards.games import GAMES as REGISTRY

PACKAGE = Path(fourcards.__file__).parent
#: The package's sources as the repository and the sdist hold them (the wheel has no .pyx or .pxd).
SOURCE = Path(__file__).resolve().parent.parent / "src" / "fourcards"
GAMES = ("gangoffour", "fourcolor", "zangle", "fourpack", "duelo")
#: Modules that list every game and may import any of them.
EVERY_GAME = ("fourcards.games", "fourcards.benchmarks", "fourcards.server", "fourcards.rl")
#: Modules that know the games only through the registry: they import no game package.
GAME_FREE_IMPORTS = ("fourcards.cli", "fourcards.tournament", "fourcards.hosting", "fourcards.saves",
                     "fourcards._snapshot")


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
        assert list(folder.glob(f"{module}.*.so")) or list(folder.glob(f"{module}.*.pyd")), name
        assert (folder / f"{module}.pyi").exists(), name
        if name != "fourcards._cyutility":  # Cython's own code, generated at build time
            assert SOURCE.joinpath(*folders, f"{module}.pyx").exists(), name
    for game in ("gangoffour", "fourcolor"):
        assert (SOURCE / game / f"_{'gof' if game == 'gangoffour' else 'fc'}.pxd").exists()  # the shared header
    for game in ("gangoffour", "fourcolor"):
        assert (PACKAGE / game / "_kernels.py").exists() and (PACKAGE / game / "_reference.py").exists()


#: The consumers that sit above the games: no game package imports them.
CONSUMERS = ("fourcards.cli", "fourcards.server", "fourcards.rl", "fourcards.tournament")


def test_no_game_imports_a_consumer_above_it() -> None:
    """The games sit below the command line, the server, the RL adapters and the
    tournaments: they build their terminal tables on :mod:`fourcards.terminal`."""
    found = sorted(f"{name} -> {target}" for name, targets in GRAPH.items()
                   if (name.split(".") + [""])[1] in GAMES
                   for target in targets if target.startswith(CONSUMERS))
    assert found == []
    assert "fourcards.terminal" in GRAPH["fourcards.fourcolor.terminal"]  # the graph sees the toolkit


def test_the_terminal_toolkit_knows_no_game_and_no_consumer() -> None:
    """The toolkit the games build on sits below them: it imports no game, no registry, no consumer."""
    found = sorted(f"{name} -> {target}" for name, targets in GRAPH.items() if name.startswith("fourcards.terminal")
                   for target in targets
                   if (target.split(".") + [""])[1] in GAMES or target.startswith((*CONSUMERS, "fourcards.games")))
    assert found == []


def test_the_generic_modules_import_no_game() -> None:
    found = sorted(f"{name} -> {target}" for name, targets in GRAPH.items() if name.startswith(GAME_FREE_IMPORTS)
                   for target in targets if (target.split(".") + [""])[1] in GAMES)
    assert found == []


# -- no game named where every game is served alike -------------------------------------------------

def game_words() -> set[str]:
    """Every way a game is named, lowercased: each registry entry's name, aliases
    and title, its engine's package and class names, and the names of the games'
    modes and classes listed in :data:`MORE_GAME_WORDS`."""
    words = set(MORE_GAME_WORDS)
    for entry in REGISTRY.values():
        cls = entry.game_class
        words.update((entry.name, *entry.aliases, entry.title, cls.name, cls.__name__))
        parts = cls.__module__.split(".")
        if len(parts) > 2 and parts[0] == "fourcards":
            words.add(parts[1])  # the game's package
    return {word.lower() for word in words}


#: Names of games' parts that the registry does not list (a real-time mode, class names).
MORE_GAME_WORDS = ("Speedster", "Zangle", "GangOfFour", "FourColor", "FourPack")
GAME_WORDS = game_words()

#: Where no game may be named: folders and modules of the package, served alike for every game.
GAME_FREE = ["cli", "tournament.py", "server", "rl", "terminal", "stats.py", "hosting", "saves.py", "_snapshot.py",
             "_links.py"]
#: Modules there that may name a game anyway, each with the reason (a per-game override module).
ALLOWED: dict[str, str] = {
    "rl/vector.py": "the vectorized environment steps one game's matches in C (its entry's rl_exports)",
    "rl/gymnasium_vector.py": "that vectorized environment behind Gymnasium's make_vec (its entry's vector_env)",
    "rl/openspiel.py": "one game as an OpenSpiel Python game (its chance node, resampling and C playouts)",
    "rl/train.py": "trains that game's learned policy (shipped with its bot) over its vectorized environment",
    "rl/distil.py": "distils that game's search into its learned policy (the search plays, the policy learns)",
    "rl/_commands.py": "the two commands above check their output files (that game's policy files) before torch",
    "rl/lessons.py": "the lessons files of that distillation (its candidate rows, its observation tensors)",
    "server/speedster.py": "Zangle Speedster's real-time server table (its entry's masters): a server part, "
                           "so it lives with the server, above the game",
}


def names_in(path: Path, words: set[str] | None = None) -> list[str]:
    """Each game word (default: :data:`GAME_WORDS`) in ``path``'s text, anywhere:
    code, strings, comments and docstrings alike, in any case; as ``file:line: word``."""
    pattern = re.compile("|".join(re.escape(w) for w in sorted(words or GAME_WORDS, key=len, reverse=True)),
                         re.IGNORECASE)
    shown = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE.parent) else path.name
    return [f"{shown}:{number}: {match.group(0)}"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for match in pattern.finditer(line)]


def game_free_files(places: list[str] = GAME_FREE, allowed: dict[str, str] = ALLOWED) -> list[Path]:
    """The ``.py`` files of ``places`` (folders or modules under the package) but the allowed ones."""
    files: list[Path] = []
    for place in places:
        target = PACKAGE / place
        files += sorted(target.rglob("*.py")) if target.is_dir() else [target]
    return [f for f in files if f.relative_to(PACKAGE).as_posix() not in allowed]


def test_the_words_are_read_from_the_registry() -> None:
    assert {"gang-of-four", "gangoffour", "gang of four", "four-color", "fourcolor", "four-color-cards",
            "zangle", "zanglegame", "four-pack", "fourpack", "duelo", "speedster"} <= GAME_WORDS
    assert not any(word in "fourcards fourcardserror" for word in GAME_WORDS)
    assert all(reason.strip() for reason in ALLOWED.values())


def test_no_game_is_named_in_the_modules_every_game_shares() -> None:
    files = game_free_files()
    assert len(files) > 5 and all(f.exists() for f in files)
    assert [hit for path in files for hit in names_in(path)] == []


def test_names_in_finds_a_game_in_code_strings_and_comments(tmp_path: Path) -> None:
    module = PACKAGE / "cli" / "__init__.py"
    sample = tmp_path / "sample.py"
    sample.write_text("import fourcards.zangle  # a comment on Duelo\nTITLE = 'Gang of Four'\n", encoding="utf-8")
    hits = [hit.rsplit(": ", 1)[1].lower() for hit in names_in(sample)]
    assert hits == ["zangle", "duelo", "gang of four"]
    assert names_in(module) == []



def test_tests_and_tools_never_import_the_source_tree() -> None:
    """Against an installed wheel, the tests and tools must import the installed package:
    nothing puts the repository's ``src/`` on ``sys.path`` or ``PYTHONPATH`` (the generators
    once did, and the suite then failed against a wheel for want of the compiled core)."""
    root = SOURCE.parent.parent
    offenders = []
    for folder in ("tests", "tools"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".py", ".sh") or "corpus" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if ("sys.path" in line or "PYTHONPATH" in line) and re.search(r"""["'/]src\b""", line):
                    offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert offenders == []
