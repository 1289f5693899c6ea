"""Reading a thinkingbox-data checkout: the test list, the task files and the scenarios.

Task files are Python modules whose test functions carry their task as a
docstring that starts with ``!`` followed by YAML. They are parsed with
:mod:`ast` and never executed. Every problem becomes one
:class:`~benchmark.errors.DatasetError` naming the file and, where there is
one, the task.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from benchmark.dataset.model import GoldenCall, PolicySource, Provenance, Rubric, Scenario, Task, TaskSet
from benchmark.dataset.tau_airline import DOMAIN as TAU_DOMAIN
from benchmark.dataset.tau_airline import is_tau_airline, load_tau_tasks, tau_provenance, tau_scenario
from benchmark.errors import DatasetError

__all__ = [
    "CANONICAL_TEST_LIST",
    "KNOWN_TAG",
    "load_scenario",
    "load_task",
    "load_tasks",
    "parse_task_file",
    "provenance",
    "read_test_list",
    "task_set_hash",
]

logger = logging.getLogger(__name__)

CANONICAL_TEST_LIST = Path("releases/thinkingbox_bench_v1/testlist_thinkingbox_bench_v1.yaml")
KNOWN_TAG = "thinkingbox-bench-v1.0"
_TASK_ID = re.compile(r"^(?P<file>[A-Za-z0-9_.-]+\.py):(?P<test>[A-Za-z_][A-Za-z0-9_]*)$")

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml is optional
    _Loader = yaml.SafeLoader


def _yaml(text: str, *, file: Path, task: str | None = None) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise DatasetError(f"malformed YAML: {exc}", file=file, task=task) from exc


def read_test_list(path: Path) -> list[str]:
    """The task ids (``<file>.py:<test>``) a test list file names, in its order."""
    if not path.is_file():
        raise DatasetError("test list not found", file=path)
    entries = _yaml(path.read_text(encoding="utf-8"), file=path)
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise DatasetError("a test list is a YAML list of '<file>.py:<test>' strings", file=path)
    for entry in entries:
        if not _TASK_ID.match(entry):
            raise DatasetError(f"not a task id of the form '<file>.py:<test>': {entry!r}", file=path)
    if len(set(entries)) != len(entries):
        raise DatasetError("the test list names a task twice", file=path)
    return list(entries)


def _bang_yaml(doc: str, *, file: Path, task: str | None) -> Any:
    text = doc.lstrip()
    if not text.startswith("!"):
        raise DatasetError("docstring does not start with '!' (no task definition)", file=file, task=task)
    return _yaml(text[1:], file=file, task=task)


def _module_scenario(module: ast.Module, file: Path) -> str | None:
    for node in module.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            value = node.value.value
            if isinstance(value, str) and value.lstrip().startswith("!"):
                header = _bang_yaml(value, file=file, task=None)
                if isinstance(header, Mapping) and isinstance(header.get("scenario"), str):
                    return str(header["scenario"])
    return None


@lru_cache(maxsize=64)
def _parsed_file(path: Path, mtime_ns: int) -> dict[str, tuple[str, Any]]:
    """Test name → (domain, raw YAML mapping) of every ``!`` test function in a task file."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"cannot read task file: {exc}", file=path) from exc
    try:
        module = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise DatasetError(f"not valid Python: {exc.msg} (line {exc.lineno})", file=path) from exc
    scenario = _module_scenario(module, path)
    tests: dict[str, tuple[str, Any]] = {}
    for node in module.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.name.startswith("test"):
            continue
        doc = ast.get_docstring(node, clean=True)
        if doc is None:
            continue
        task_id = f"{path.name}:{node.name}"
        raw = _bang_yaml(doc, file=path, task=task_id)
        if scenario is None:
            raise DatasetError("the module has no '!' docstring with 'scenario: <domain>'", file=path)
        tests[node.name] = (scenario, raw)
    return tests


def _str_field(raw: Mapping[str, Any], key: str, *, file: Path, task: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise DatasetError(f"'{key}' is missing or not text", file=file, task=task)
    return value


def _task_from_raw(domain: str, raw: Any, *, file: Path, test: str) -> Task:
    task_id = f"{file.name}:{test}"
    if not isinstance(raw, Mapping):
        raise DatasetError("the task docstring is not a YAML mapping", file=file, task=task_id)
    query = _str_field(raw, "query", file=file, task=task_id)
    user_context = _str_field(raw, "user_context", file=file, task=task_id)
    init = raw.get("init")
    if not isinstance(init, Mapping) or not isinstance(init.get(domain), Mapping):
        raise DatasetError(f"'init.{domain}' is missing or not a mapping", file=file, task=task_id)
    server = init[domain]
    patch = server.get("data_patch") or {}
    if not isinstance(patch, Mapping) or not all(
        isinstance(rows, list) and all(isinstance(r, Mapping) for r in rows) for rows in patch.values()
    ):
        raise DatasetError(
            f"'init.{domain}.data_patch' must map table names to lists of rows", file=file, task=task_id
        )
    golden_raw = (server.get("golden_test_case") or {}).get("tool_interactions")
    if golden_raw is None:
        golden_raw = []
    if not isinstance(golden_raw, list):
        raise DatasetError("'golden_test_case.tool_interactions' must be a list", file=file, task=task_id)
    golden: list[GoldenCall] = []
    for index, call in enumerate(golden_raw):
        if not isinstance(call, Mapping) or not isinstance(call.get("tool"), str):
            raise DatasetError(f"golden call {index} has no 'tool' name", file=file, task=task_id)
        params = call.get("parameters") or {}
        if not isinstance(params, Mapping):
            raise DatasetError(f"golden call {index}: 'parameters' is not a mapping", file=file, task=task_id)
        golden.append(GoldenCall(tool=call["tool"], arguments=dict(params)))
    rubrics_raw = server.get("rubrics_yesno") or []
    if not isinstance(rubrics_raw, list) or not all(isinstance(r, str) for r in rubrics_raw):
        raise DatasetError("'rubrics_yesno' must be a list of questions", file=file, task=task_id)
    return Task(
        id=task_id,
        domain=domain,
        file=file.name,
        test=test,
        query=query,
        user_context=user_context,
        data_patch={str(t): [dict(r) for r in rows] for t, rows in patch.items()},
        golden=tuple(golden),
        rubrics=tuple(Rubric(q) for q in rubrics_raw),
    )


def _find_task_file(data_dir: Path, file_name: str) -> Path:
    root = data_dir / "dataset" / "test_case"
    if not root.is_dir():
        raise DatasetError("no dataset/test_case directory", file=root)
    matches = sorted(root.rglob(file_name))
    if not matches:
        raise DatasetError("task file not found under dataset/test_case", file=file_name)
    return matches[0]


def parse_task_file(path: Path) -> list[Task]:
    """Every task defined in one task file, in file order."""
    return [
        _task_from_raw(domain, raw, file=path, test=test)
        for test, (domain, raw) in _parsed_file(path, path.stat().st_mtime_ns).items()
    ]


def load_task(data_dir: Path, task_id: str) -> Task:
    """One task by its id ``<file>.py:<test>``."""
    match = _TASK_ID.match(task_id)
    if not match:
        raise DatasetError(f"not a task id of the form '<file>.py:<test>': {task_id!r}")
    path = _find_task_file(data_dir, match["file"])
    tests = _parsed_file(path, path.stat().st_mtime_ns)
    if match["test"] not in tests:
        raise DatasetError("no such test function with a '!' docstring", file=path, task=task_id)
    domain, raw = tests[match["test"]]
    return _task_from_raw(domain, raw, file=path, test=match["test"])


def _definition(task: Task) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": task.id,
        "domain": task.domain,
        "query": task.query,
        "user_context": task.user_context,
        "data_patch": task.data_patch,
        "golden": [{"tool": c.tool, "arguments": c.arguments} for c in task.golden],
        "rubrics": [r.question for r in task.rubrics],
    }
    if task.outputs:  # only tau-bench's tasks have them; other tasks hash as before
        out["outputs"] = list(task.outputs)
    return out


def task_set_hash(tasks: Iterable[Task]) -> str:
    """SHA-256 over the canonical JSON of the tasks' definitions, order-independent."""
    payload = sorted((_definition(t) for t in tasks), key=lambda item: str(item["id"]))
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _git(data_dir: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(data_dir), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def provenance(data_dir: Path) -> Provenance:
    """The data's git tag or commit when it is a git checkout, else the tag its release README names."""
    if (data_dir / ".git").exists():
        tag = _git(data_dir, "describe", "--tags", "--exact-match")
        commit = _git(data_dir, "rev-parse", "HEAD")
        if tag and commit:
            return Provenance(f"{tag}@{commit}", "git")
        if commit:
            return Provenance(commit, "git")
    readme = data_dir / "releases" / "thinkingbox_bench_v1" / "README.md"
    if readme.is_file() and KNOWN_TAG in readme.read_text(encoding="utf-8", errors="replace"):
        return Provenance(KNOWN_TAG, "release README")
    return Provenance("unknown", "no git metadata or release README")


def load_tasks(
    data_dir: Path,
    *,
    domain: str | None = None,
    tasks_file: Path | None = None,
    task_ids: Sequence[str] | None = None,
    limit: int | None = None,
) -> TaskSet:
    """The selected tasks: from ``task_ids``, else ``tasks_file``, else the canonical test list.

    ``domain`` keeps only that domain's tasks; ``limit`` keeps the first N after that.
    A tau-bench airline folder holds the airline's tasks (``tau_airline/<i>``), all of them unless named.
    """
    if is_tau_airline(data_dir):
        if tasks_file is not None:
            raise DatasetError("a tasks file lists ThinkingBox tasks; name tau-bench's as tau_airline/<i>")
        airline = (
            load_tau_tasks(data_dir, task_ids=task_ids, limit=limit) if domain in (None, TAU_DOMAIN) else ()
        )
        return TaskSet(airline, tau_provenance(data_dir), task_set_hash(airline))
    if not (data_dir / "dataset").is_dir():
        raise DatasetError("not a thinkingbox-data checkout (no dataset/ directory)", file=data_dir)
    if task_ids is None:
        ids = read_test_list(tasks_file if tasks_file is not None else data_dir / CANONICAL_TEST_LIST)
    else:
        ids = list(task_ids)
    if domain is not None:
        ids = [i for i in ids if i.split(":", 1)[0].startswith(domain + "_")]
    selected: list[Task] = []
    for task_id in ids:
        task = load_task(data_dir, task_id)
        if domain is not None and task.domain != domain:
            continue
        selected.append(task)
        if limit is not None and len(selected) >= limit:
            break
    logger.debug("loaded %d tasks from %s", len(selected), data_dir)
    return TaskSet(tuple(selected), provenance(data_dir), task_set_hash(selected))


def load_scenario(data_dir: Path, domain: str) -> Scenario:
    """A domain's scenario: tool names, bot instructions and knowledge-base sources.

    A tau-bench airline folder holds the airline's scenario only.
    """
    if is_tau_airline(data_dir):
        if domain != TAU_DOMAIN:
            raise DatasetError(
                f"a tau-bench airline folder has no scenario for domain {domain!r}", file=data_dir
            )
        return tau_scenario(data_dir)
    path = data_dir / "dataset" / "scenario" / f"{domain}.yaml"
    if not path.is_file():
        raise DatasetError(f"scenario for domain {domain!r} not found", file=path)
    raw = _yaml(path.read_text(encoding="utf-8"), file=path)
    if not isinstance(raw, Mapping):
        raise DatasetError("a scenario is a YAML mapping", file=path)
    tools_raw = raw.get("tools")
    if not isinstance(tools_raw, list):
        raise DatasetError("'tools' is missing or not a list", file=path)
    tools: list[str] = []
    for entry in tools_raw:
        name = entry.get("name") if isinstance(entry, Mapping) else entry
        if not isinstance(name, str):
            raise DatasetError(f"tool entry without a name: {entry!r}", file=path)
        tools.append(name)
    instructions = raw.get("bot_instructions")
    if not isinstance(instructions, str):
        raise DatasetError("'bot_instructions' is missing or not text", file=path)
    world = (raw.get("world_state") or {}).get(domain) or {}
    sources_raw = world.get("sources") or [] if isinstance(world, Mapping) else []
    sources: list[PolicySource] = []
    for entry in sources_raw:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise DatasetError(f"knowledge-base source without a name: {str(entry)[:80]!r}", file=path)
        snippets = entry.get("snippets") or []
        if not isinstance(snippets, list) or not all(isinstance(s, str) for s in snippets):
            raise DatasetError(f"source {entry['name']!r}: 'snippets' must be a list of text", file=path)
        sources.append(PolicySource(entry["name"], tuple(snippets)))
    return Scenario(domain=domain, tools=tuple(tools), bot_instructions=instructions, sources=tuple(sources))
