"""One virtual environment per agent framework, built from its pinned requirements and reused.

Each framework in :data:`FRAMEWORKS` gets ``<root>/<name>``, where the root is ``GUARD_FRAMEWORK_VENVS``
(default ``.ci/framework-venvs`` in the repository). An environment is reused while its stamp (the
requirements file's hash and the interpreter's version) matches; otherwise it is made anew with
``python -m venv`` and ``pip install -r``. A failed build raises :class:`BuildFailed` with the end of
pip's output and leaves no stamp, so the next build starts over.

``python -m tests.frameworks.build`` builds them all (in parallel) before the tests run, as ``.ci/run`` does.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FRAMEWORKS", "BuildFailed", "Framework", "build", "build_all", "venv_root"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
_BUILD_TIMEOUT_S = 900


@dataclass(frozen=True)
class Framework:
    name: str
    script: str

    @property
    def requirements(self) -> Path:
        return HERE / f"requirements-{self.name}.txt"

    @property
    def script_path(self) -> Path:
        return HERE / "agents" / self.script


FRAMEWORKS: tuple[Framework, ...] = (
    Framework("pydantic_ai", "pydantic_ai_agent.py"),
    Framework("openai_agents", "openai_agents_agent.py"),
    Framework("langchain", "langchain_agent.py"),
)


class BuildFailed(Exception):
    """A framework's environment could not be built (no registry, a pin that does not resolve)."""


def venv_root() -> Path:
    configured = os.environ.get("GUARD_FRAMEWORK_VENVS")
    return Path(configured) if configured else ROOT / ".ci" / "framework-venvs"


def _stamp(framework: Framework) -> str:
    digest = hashlib.sha256(framework.requirements.read_bytes()).hexdigest()
    return f"{digest} {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}\n"


def _run(command: list[str], framework: Framework) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise BuildFailed(
            f"{framework.name}: {' '.join(command[1:4])} took over {_BUILD_TIMEOUT_S} s"
        ) from exc
    if done.returncode != 0:
        said = [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("WARNING:")]
        tail = "\n".join(said[-15:])
        raise BuildFailed(f"{framework.name}: {' '.join(command[1:4])} failed:\n{tail}")


def build(framework: Framework, root: Path | None = None) -> Path:
    """The python of ``framework``'s environment, built first unless an up-to-date one is there."""
    venv = (root or venv_root()) / framework.name
    python = venv / "bin" / "python"
    stamp_file = venv / "guard-stamp"
    stamp = _stamp(framework)
    if python.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "venv", str(venv)], framework)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, "-r", str(framework.requirements)], framework)
    stamp_file.write_text(stamp)
    return python


def build_all(root: Path | None = None) -> dict[str, Path | BuildFailed]:
    """Every framework's python, or why its environment could not be built; built in parallel."""
    with ThreadPoolExecutor(max_workers=len(FRAMEWORKS)) as pool:
        futures = {f.name: pool.submit(build, f, root) for f in FRAMEWORKS}
    built: dict[str, Path | BuildFailed] = {}
    for name, future in futures.items():
        error = future.exception()
        if error is not None and not isinstance(error, BuildFailed):
            raise error
        built[name] = error if error is not None else future.result()
    return built


def main() -> int:
    started = time.monotonic()
    built = build_all()
    failed = 0
    for name, python in built.items():
        if isinstance(python, BuildFailed):
            failed += 1
            print(python, file=sys.stderr)
        else:
            print(f"{name}: {python}")
    print(f"framework environments in {venv_root()}: {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
