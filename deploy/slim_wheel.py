"""Build the production wheel: the ``guard``, ``judges`` and ``migrations`` packages, without the benchmark.

The project's ``pyproject.toml`` ships ``benchmark/`` in the same distribution and plugs its commands into
the CLI (entry point group ``guard.cli``). The image needs neither, so this script copies the sources the
image needs into a scratch directory, drops the benchmark from that copy's ``pyproject.toml`` (its package
pattern, its package data, its entry point), checks the result by parsing it, builds the wheel there and
checks the wheel. The project's own files are never changed. The Dockerfile and the tests run this same
script, so what the tests install is what the image installs.

    python deploy/slim_wheel.py SOURCE_DIR WHEEL_DIR     # prints the wheel's path

The wheel is built with the running interpreter's setuptools (no build isolation: nothing is downloaded).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

__all__ = ["PACKAGES", "build", "slim_pyproject"]

PACKAGES = ("guard", "judges", "migrations")
"""The top-level packages of the production wheel."""

_DROPPED = "benchmark"
_TABLE = re.compile(r"^\s*\[")


def _without_table(lines: list[str], header: str) -> list[str]:
    kept: list[str] = []
    skipping = False
    for line in lines:
        if _TABLE.match(line):
            skipping = line.strip() == header
        if not skipping:
            kept.append(line)
    return kept


def _in_table(lines: list[str], header: str, edit: dict[str, str | None]) -> list[str]:
    """``lines`` with the keys of ``edit`` in table ``header`` replaced by their value (None: removed)."""
    out: list[str] = []
    inside = False
    for line in lines:
        if _TABLE.match(line):
            inside = line.strip() == header
        key = line.split("=", 1)[0].strip() if inside and "=" in line else None
        if key in edit:
            replacement = edit[key]
            if replacement is not None:
                out.append(f"{key} = {replacement}\n")
            continue
        out.append(line)
    return out


def slim_pyproject(text: str) -> str:
    """``pyproject.toml`` text without the benchmark; raises ValueError if any trace of it is left."""
    lines = text.splitlines(keepends=True)
    lines = _without_table(lines, '[project.entry-points."guard.cli"]')
    include = "[" + ", ".join(f'"{name}*"' for name in PACKAGES) + "]"
    lines = _in_table(lines, "[tool.setuptools.packages.find]", {"include": include})
    lines = _in_table(lines, "[tool.setuptools.package-data]", {_DROPPED: None})
    slim = "".join(lines)
    _check(tomllib.loads(slim))
    return slim


def _check(project: dict[str, object]) -> None:
    tool = project.get("tool", {})
    assert isinstance(tool, dict)
    setuptools = tool.get("setuptools", {})
    include = setuptools.get("packages", {}).get("find", {}).get("include")
    if include != [f"{name}*" for name in PACKAGES]:
        raise ValueError(f"pyproject.toml: packages.find include is {include!r} after slimming")
    if _DROPPED in setuptools.get("package-data", {}):
        raise ValueError("pyproject.toml: package data for the benchmark is left")
    meta = project.get("project", {})
    assert isinstance(meta, dict)
    if _DROPPED in repr(meta.get("entry-points", {})) or _DROPPED in repr(meta.get("scripts", {})):
        raise ValueError("pyproject.toml: an entry point into the benchmark is left")


def _check_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        tops = {name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith(".dist-info")}
        entry_points = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        text = archive.read(entry_points[0]).decode() if entry_points else ""
    if tops != set(PACKAGES):
        raise ValueError(f"{wheel.name}: top-level packages {sorted(tops)}, expected {list(PACKAGES)}")
    if _DROPPED in text:
        raise ValueError(f"{wheel.name}: entry_points.txt still names the benchmark")


def build(source: Path, out: Path) -> Path:
    """Build the production wheel from the project at ``source`` into ``out``; returns its path."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="guard-wheel-") as scratch:
        root = Path(scratch)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        for name in PACKAGES:
            shutil.copytree(source / name, root / name, ignore=ignore)
        shutil.copy2(source / "README.md", root / "README.md")
        (root / "pyproject.toml").write_text(slim_pyproject((source / "pyproject.toml").read_text()))
        before = set(out.glob("*.whl"))
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        subprocess.run([*command, "--wheel-dir", str(out), str(root)], check=True)
        built = sorted(set(out.glob("guard-*.whl")) - before) or sorted(out.glob("guard-*.whl"))
    if not built:
        raise RuntimeError(f"pip built no guard wheel into {out}")
    _check_wheel(built[-1])
    return built[-1]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python deploy/slim_wheel.py SOURCE_DIR WHEEL_DIR", file=sys.stderr)
        return 2
    print(build(Path(argv[0]).resolve(), Path(argv[1]).resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
