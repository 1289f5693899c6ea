"""The production image without a Docker engine: what it builds, installs and runs.

The Dockerfile builds its wheel with deploy/slim_wheel.py and installs it with deploy/constraints.txt; the
``installed`` fixture builds the same wheel with the same script and installs it, so these tests (and the
live ones, which run that installation) check what the image holds.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import zipfile
from types import ModuleType

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.deploy.conftest import DEPLOY, Installed, clean_env
from tests.deploy.dockerfile import Image


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"deploy_{name}", DEPLOY / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_production_wheel_holds_the_guard_without_the_benchmark(installed: Installed) -> None:
    """Requirement G31: the wheel holds guard, judges and migrations only, plugs nothing into the CLI, and
    the guard installed from it runs without the benchmark."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        plugged = wheel.read(entry_points).decode()
    assert {n.split("/", 1)[0] for n in names if ".dist-info/" not in n} == {"guard", "judges", "migrations"}
    assert "[guard.cli]" not in plugged
    assert "benchmark" not in plugged
    # nor through a checkout on PYTHONPATH (the tests' own, when they run a worktree's code)
    env = {name: value for name, value in clean_env().items() if name != "PYTHONPATH"}
    probe = subprocess.run(
        [str(installed.python), "-c", "import importlib.util as u; print(u.find_spec('benchmark'))"],
        capture_output=True,
        text=True,
        env=env,
        cwd=installed.venv,
        timeout=60,
        check=True,
    )
    assert probe.stdout.strip() == "None"
    shown = subprocess.run(
        [str(installed.venv / "bin" / "guard"), "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=installed.venv,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    commands = set(re.findall(r"^  ([a-z][a-z-]*) ", shown.stdout, re.MULTILINE))
    assert {"serve", "db", "transactions"} <= commands, commands
    assert not {"bench", "report"} & commands, commands
    assert "warning" not in shown.stderr.lower(), shown.stderr


def test_dockerfile_builds_and_runs_what_the_tests_check(image: Image) -> None:
    """Requirement G31: the image copies no benchmark, builds with deploy/slim_wheel.py, installs with the
    constraints file, runs as a non-root user, takes its address from the config, and its HEALTHCHECK
    names no port."""
    assert not [c for c in image.copies if "benchmark" in c]
    assert any("deploy/slim_wheel.py" in run for run in image.runs)
    assert any(
        re.search(r"pip install --constraint deploy/constraints.txt \S+\.whl", run) for run in image.runs
    )
    user, _, group = image.user.partition(":")
    assert user.isdigit()
    assert int(user) != 0
    assert not group or int(group) != 0
    assert image.entrypoint == ["guard"]
    assert image.cmd[0] == "serve"
    assert "--host" not in image.cmd
    assert "--port" not in image.cmd
    assert image.healthcheck[:2] == ["python", "/opt/guard/healthcheck.py"]
    assert not [part for part in image.healthcheck if re.search(r"\b\d{2,5}\b", part)]
    assert "deploy/healthcheck.py /opt/guard/healthcheck.py" in image.copies


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (DEPLOY / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not a pin: {line!r}"
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_constraints_pin_every_runtime_dependency_and_no_test_tool() -> None:
    """Requirement G31: deploy/constraints.txt pins each of the guard's requirements to a version they
    admit, and every requirement of every pinned package whose metadata is installed here in that version
    (so the image installs nothing unpinned); it pins no test tool."""
    constraints = _module("constraints")
    pins = _pins()
    closure = constraints.runtime_closure()
    from importlib.metadata import distribution

    for text in distribution("guard").requires or []:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not pinned: regenerate with python deploy/constraints.py"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{name}=={pins[name]} vs {requirement}"
        )
    for name, (version, requirements) in closure.items():
        if name in pins and Version(version) == pins[name]:
            unpinned = {canonicalize_name(r.name) for r in requirements} - set(pins)
            assert not unpinned, f"{name}'s requirements {sorted(unpinned)} are not pinned"
    assert not {"pytest", "mypy", "ruff", "hypothesis", "kubernetes-validate", "check-jsonschema"} & set(pins)
