"""A griffe extension for the API pages: reST-flavoured docstrings to Markdown.

The package's docstrings are written to read well in ``help()`` and to run as
doctests: examples are bare ``>>>`` blocks and references are Sphinx roles
(``:class:`Card```).  For MkDocs, this extension fences each ``>>>`` block as
a ``pycon`` code block and turns each role into inline code.  It changes only
the text the API pages render, never the package.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`(~?)([^`]+)`")


def _role_to_code(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    if short:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def fence_doctests(text: str) -> str:
    """Wrap every run of doctest lines (a ``>>>`` line up to a blank line) in a fence."""
    out: list[str] = []
    in_fence = False  # inside a fence the docstring wrote itself
    in_doctest = False
    indent = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not in_doctest and stripped.startswith("```"):
            in_fence = not in_fence
        if in_doctest and not stripped:
            out.append(f"{indent}```")
            in_doctest = False
        elif not in_fence and not in_doctest and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            in_doctest = True
        out.append(line)
    if in_doctest:
        out.append(f"{indent}```")
    return "\n".join(out)


def to_markdown(text: str) -> str:
    """The docstring text as Markdown: fenced doctests, roles as inline code."""
    return _ROLE.sub(_role_to_code, fence_doctests(text))


class DocstringsToMarkdown(griffe.Extension):
    """Rewrite each docstring once, when griffe loads its object."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
