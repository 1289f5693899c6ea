"""Reading a YAML document together with where each of its nodes sits in the file.

The only module that imports PyYAML. :func:`read_yaml` returns the plain data
and a :class:`SourceMap` that turns a path inside the document
(``("rules", 3, "require")``) into a 1-based line and column, including
positions inside an expression held by a scalar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from judges.errors import RuleLoadError

__all__ = ["SourceMap", "read_yaml"]


@dataclass(frozen=True, slots=True)
class SourceMap:
    """Positions of the nodes of one YAML document."""

    file: str
    root: yaml.Node
    lines: tuple[str, ...]

    def node(self, path: Sequence[str | int]) -> yaml.Node | None:
        """The node at ``path``, or the deepest existing node on the way to it."""
        node = self.root
        for part in path:
            child = _child(node, part)
            if child is None:
                return node
            node = child
        return node

    def position(self, path: Sequence[str | int]) -> tuple[int, int]:
        """1-based line and column of the node at ``path``."""
        node = self.node(path)
        if node is None:
            return (1, 1)
        return (node.start_mark.line + 1, node.start_mark.column + 1)

    def position_in_scalar(self, path: Sequence[str | int], line: int, column: int) -> tuple[int, int]:
        """The file position of ``line:column`` (1-based) inside the scalar at ``path``.

        Exact for single-line plain or quoted scalars and for literal blocks
        (``|``); for other multi-line styles, the start of the scalar.
        """
        node = self.node(path)
        if not isinstance(node, yaml.ScalarNode):
            return self.position(path)
        start, end = node.start_mark, node.end_mark
        if node.style == "|":
            opening = self.lines[start.line + 1] if start.line + 1 < len(self.lines) else ""
            indent = len(opening) - len(opening.lstrip(" "))
            return (start.line + line + 1, indent + column)
        if node.style in (None, "'", '"') and start.line == end.line and line == 1:
            quote = 0 if node.style is None else 1
            return (start.line + 1, start.column + quote + column)
        return (start.line + 1, start.column + 1)


def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == part:
                return value  # type: ignore[no-any-return]
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return node.value[part]  # type: ignore[no-any-return]
    return None


def read_yaml(text: str, file: str) -> tuple[Any, SourceMap]:
    """The document's data and source map; bad YAML is a :class:`RuleLoadError` at its position."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        raise RuleLoadError(file, f"not valid YAML: {exc.problem or exc}", line=line, column=column) from exc
    except yaml.YAMLError as exc:
        raise RuleLoadError(file, f"not valid YAML: {exc}") from exc
    finally:
        loader.dispose()
    if root is None:
        raise RuleLoadError(file, "the document is empty", line=1, column=1)
    return data, SourceMap(file, root, tuple(text.splitlines()))
