"""Just enough of a Dockerfile reader for the deploy tests: the final stage's run-time instructions.

Instructions are joined across ``\\`` line continuations; ENTRYPOINT, CMD and HEALTHCHECK must use the
exec (JSON) form, so that what they run is an argument vector, as the tests execute it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Image", "parse"]


@dataclass
class Image:
    """The final stage's run-time settings, and every RUN and COPY of the whole file."""

    entrypoint: list[str] = field(default_factory=list)
    cmd: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)
    healthcheck_options: list[str] = field(default_factory=list)
    user: str = ""
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)


def _instructions(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = pending + line
        pending = ""
        keyword, _, rest = whole.partition(" ")
        found.append((keyword.upper(), rest.strip()))
    return found


def _exec_form(value: str, what: str) -> list[str]:
    parsed = json.loads(value)
    assert isinstance(parsed, list), f"{what} is not exec form"
    assert all(isinstance(p, str) for p in parsed), f"{what} is not exec form"
    return parsed


def _env(value: str) -> dict[str, str]:
    pairs = {}
    for part in value.split():
        name, _, item = part.partition("=")
        pairs[name] = item
    return pairs


def parse(path: Path) -> Image:
    """``path`` read: a new FROM starts a new final stage (RUN and COPY lines are kept from all stages)."""
    image = Image()
    for keyword, rest in _instructions(path.read_text()):
        if keyword == "FROM":
            runs, copies = image.runs, image.copies
            image = Image(runs=runs, copies=copies)
        elif keyword == "RUN":
            image.runs.append(rest)
        elif keyword == "COPY":
            image.copies.append(rest)
        elif keyword == "ENTRYPOINT":
            image.entrypoint = _exec_form(rest, "ENTRYPOINT")
        elif keyword == "CMD":
            image.cmd = _exec_form(rest, "CMD")
        elif keyword == "USER":
            image.user = rest
        elif keyword == "WORKDIR":
            image.workdir = rest
        elif keyword == "ENV":
            image.env.update(_env(rest))
        elif keyword == "HEALTHCHECK":
            options, _, command = rest.partition(" CMD ")
            image.healthcheck_options = options.split()
            image.healthcheck = _exec_form(command, "HEALTHCHECK CMD")
    return image
