"""Fixtures of the deploy tests: the manifests, the production image's files, a pod network, a database.

``GUARD_REQUIRE_NONLOOPBACK=1`` (set by ``.ci/run``) turns the skip of the tests that need a network
namespace (root and iproute2) into a failure; ``GUARD_REQUIRE_COMPOSE=1`` does the same for the tests that
run ``docker-compose config`` (Debian's docker-compose).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, _missing
from tests.deploy import dockerfile, kube, pod

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"


@pytest.fixture(scope="session")
def k8s_docs() -> list[kube.Doc]:
    return kube.load_documents(sorted(K8S.glob("*.yaml")))


@pytest.fixture(scope="session")
def image() -> dockerfile.Image:
    return dockerfile.parse(DEPLOY / "Dockerfile")


@dataclass(frozen=True)
class Installed:
    """The production wheel, and the virtual environment it is installed in (the image's /opt/guard)."""

    wheel: Path
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


@pytest.fixture(scope="session")
def installed() -> Iterator[Installed]:
    """The wheel deploy/slim_wheel.py builds, installed as the image installs it, less the downloads.

    Its dependencies are this environment's (the versions deploy/constraints.txt pins), reached through a
    path entry, so the project's editable install (and with it benchmark/) is not on the path.
    """
    base = Path(tempfile.mkdtemp(prefix="guard-image-"))
    try:
        build = subprocess.run(
            [sys.executable, str(DEPLOY / "slim_wheel.py"), str(ROOT), str(base / "wheels")],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert build.returncode == 0, build.stderr
        wheel = Path(build.stdout.strip())
        venv = base / "opt" / "guard"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        site = Path(
            subprocess.run(
                [
                    str(venv / "bin" / "python"),
                    "-c",
                    "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        (site / "_guard_dependencies.pth").write_text("\n".join(sorted(paths)) + "\n")
        pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet"]
        subprocess.run([*pip, "--no-deps", "--no-index", str(wheel)], check=True, timeout=300)
        shutil.copy2(DEPLOY / "healthcheck.py", venv / "healthcheck.py")
        yield Installed(wheel, venv)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def network_available() -> None:
    problem = pod.network_problem()
    if problem is not None:
        _missing("a network namespace (a non-loopback address)", problem, "GUARD_REQUIRE_NONLOOPBACK")


def make_pod(network: pod.PodNetwork, installed: Installed, base: Path) -> pod.Pod:
    """A pod over a fresh root under ``base`` whose /opt/guard is the installed image."""
    root = base / "root"
    for folder in ("etc/guard", "tmp", "var/lib/guard", "opt"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "opt" / "guard").symlink_to(installed.venv)
    return pod.Pod(network, root, writable=["/tmp"])


def database_url(server_url: str, host: str, port: int, name: str) -> str:
    """``server_url``'s user on ``host:port`` (the pod's route to it), database ``name``."""
    from sqlalchemy.engine import make_url

    parsed = make_url(server_url)
    url = parsed.set(drivername="postgresql", host=host, port=port, database=name, password=None)
    return url.render_as_string(hide_password=False)


def _admin(server_url: str, sql: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(server_url)

    async def run() -> None:
        conn = await asyncpg.connect(
            host=parsed.host, port=parsed.port or 5432, user=parsed.username, database=parsed.database
        )
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


@pytest.fixture(scope="module")
def fresh_database(postgres_url: str) -> Iterator[Callable[[], str]]:
    """Makes new, empty databases on the test server (returns the name); all dropped afterwards."""
    made: list[str] = []

    def new() -> str:
        name = f"guard_deploy_{uuid.uuid4().hex[:10]}"
        _admin(postgres_url, f'CREATE DATABASE "{name}"')
        made.append(name)
        return name

    yield new
    for name in made:
        _admin(postgres_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def postgres_target(postgres_url: str) -> tuple[str, int]:
    from sqlalchemy.engine import make_url

    parsed = make_url(postgres_url)
    return parsed.host or "127.0.0.1", parsed.port or 5432


def require_compose() -> str:
    found = shutil.which("docker-compose")
    if found is None:
        _missing("docker-compose", "not installed (Debian package docker-compose)", "GUARD_REQUIRE_COMPOSE")
    assert found is not None
    return found


def clean_env() -> dict[str, str]:
    """The environment for subprocesses: this one without GUARD_* settings that would leak into a guard."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GUARD_")}
