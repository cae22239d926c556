"""What the release ships says what it should: one version, the project's links,
a README that renders on PyPI (absolute links and image), a changelog, and a
release workflow whose actions are pinned.  Read from the files the sdist
ships (README.md, pyproject.toml, CHANGELOG.md, src/, .github/ in a checkout)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import fourcards

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml on Python 3.10 needs tomli")


def pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        data: dict[str, object] = tomllib.load(handle)
    return data


def test_the_version_is_written_once() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict) and "version" not in project and "version" in project["dynamic"]
    source = (ROOT / "src" / "fourcards" / "__init__.py").read_text(encoding="utf-8")
    assert re.search(r'^__version__ = "([^"]+)"$', source, re.MULTILINE)
    written = [path for path in (ROOT / "src").rglob("*.py")
               if path.name != "__init__.py" and re.search(r'^__version__ = ["\d]', path.read_text(encoding="utf-8"),
                                                           re.MULTILINE)]
    assert written == []
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+|\.dev\d+)?", fourcards.__version__)


def test_the_project_links() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert set(project["urls"]) == {"Homepage", "Documentation", "Source", "Issues", "Changelog"}
    assert all(url.startswith("https://") for url in project["urls"].values())


def test_the_readme_renders_on_pypi() -> None:
    """PyPI shows the README without the repository around it: every link and image
    is absolute (or a mail address)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'<img[^>]*\ssrc="([^"]+)"', text)
    assert targets
    relative = [target for target in targets if not target.startswith(("https://", "mailto:"))]
    assert relative == []


def test_the_changelog_has_an_unreleased_section_or_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings and (headings[0] == "Unreleased" or headings[0].startswith(fourcards.__version__))


def test_every_action_is_pinned_to_a_commit() -> None:
    workflows = ROOT / ".github" / "workflows"
    if not workflows.is_dir():
        pytest.skip("no .github/ here (the sdist does not ship the repository's CI)")
    uses = [(path.name, line.strip()) for path in sorted(workflows.glob("*.yml"))
            for line in path.read_text(encoding="utf-8").splitlines() if re.match(r"\s*-?\s*uses:", line)]
    assert uses
    loose = [(name, line) for name, line in uses if not re.search(r"@[0-9a-f]{40}\s+#\s*v\d", line)]
    assert loose == []
