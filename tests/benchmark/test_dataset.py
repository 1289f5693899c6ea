"""The loader: the canonical task list, task files parsed with ast, scenarios, provenance and errors."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import pytest

from benchmark.dataset import (
    KNOWN_TAG,
    load_scenario,
    load_task,
    load_tasks,
    parse_task_file,
    read_test_list,
    task_set_hash,
)
from benchmark.errors import DatasetError

GOOD_FILE = '''
import json

"""!
scenario: sandbox_external_retail
"""


def test_case_A(x, judge):
    """!
    query: Where is my order?
    user_context: You are Alex.
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_tickets: []
        golden_test_case:
          tool_interactions:
          - tool: get_order
            parameters:
              order_id: ORD-1
        rubrics_yesno:
          - Is the reply polite?
    """
    raise SystemExit("task files are never executed")


def helper():
    """Not a task."""
'''


def _dataset(root: Path, files: dict[str, str], test_list: list[str] | None = None) -> Path:
    cases = root / "dataset" / "test_case" / "sandbox_external_retail"
    cases.mkdir(parents=True)
    for name, text in files.items():
        (cases / name).write_text(text, encoding="utf-8")
    if test_list is not None:
        listing = root / "releases" / "thinkingbox_bench_v1"
        listing.mkdir(parents=True)
        (listing / "testlist_thinkingbox_bench_v1.yaml").write_text(
            "".join(f"- {entry}\n" for entry in test_list), encoding="utf-8"
        )
    return root


def test_the_canonical_list_has_507_tasks_in_five_domains(data_dir: Path) -> None:
    tasks = load_tasks(data_dir)
    assert len(tasks) == 507
    counts = collections.Counter(t.domain for t in tasks)
    assert counts == {
        "sandbox_external_retail": 98,
        "sandbox_auto_insurance": 100,
        "sandbox_consulting": 101,
        "external_booking_v1": 104,
        "sandbox_neobank_support_v1": 104,
    }
    assert sum(1 for t in tasks if t.rubrics) == 30
    assert tasks.provenance.ref == KNOWN_TAG
    assert len(tasks.content_hash) == 64


def test_a_retail_task_carries_query_context_patch_and_golden_calls(data_dir: Path) -> None:
    task = load_task(data_dir, "sandbox_external_retail_group1.py:test_case_ST003_006")
    assert task.domain == "sandbox_external_retail"
    assert task.query
    assert task.user_context
    assert "zendesk_tickets" in task.data_patch
    assert [c.tool for c in task.golden][-1] == "zendesk_update_item"
    assert task.golden[-1].arguments["item"]["status"] == "hold"


def test_selection_by_domain_limit_and_file(data_dir: Path, tmp_path: Path) -> None:
    retail = load_tasks(data_dir, domain="sandbox_external_retail", limit=5)
    assert len(retail) == 5
    assert {t.domain for t in retail} == {"sandbox_external_retail"}
    listing = tmp_path / "list.yaml"
    listing.write_text(f"- {retail.tasks[1].id}\n- {retail.tasks[0].id}\n", encoding="utf-8")
    chosen = load_tasks(data_dir, tasks_file=listing)
    assert [t.id for t in chosen] == [retail.tasks[1].id, retail.tasks[0].id]
    assert chosen.content_hash == task_set_hash(reversed(chosen.tasks))
    assert chosen.content_hash != retail.content_hash


def test_scenario_has_tools_instructions_and_sources(data_dir: Path) -> None:
    scenario = load_scenario(data_dir, "sandbox_external_retail")
    assert len(scenario.tools) == 33
    assert "2025-10-01" in scenario.bot_instructions
    assert len(scenario.sources) == 9
    assert all(s.snippets for s in scenario.sources)


def test_a_synthetic_task_file_is_read_without_running_it(tmp_path: Path) -> None:
    root = _dataset(tmp_path, {"x_group1.py": GOOD_FILE}, ["x_group1.py:test_case_A"])
    tasks = load_tasks(root)
    (task,) = tasks
    assert task.id == "x_group1.py:test_case_A"
    assert task.golden[0].tool == "get_order"
    assert task.golden[0].arguments == {"order_id": "ORD-1"}
    assert [r.question for r in task.rubrics] == ["Is the reply polite?"]
    assert tasks.provenance.ref == "unknown"


def test_malformed_yaml_names_file_and_task(tmp_path: Path) -> None:
    broken = GOOD_FILE.replace("query: Where is my order?", "query: [unclosed")
    root = _dataset(tmp_path, {"x_group1.py": broken})
    with pytest.raises(DatasetError, match="malformed YAML") as info:
        load_task(root, "x_group1.py:test_case_A")
    assert info.value.task == "x_group1.py:test_case_A"
    assert info.value.file is not None
    assert info.value.file.endswith("x_group1.py")


def test_missing_fields_name_file_and_task(tmp_path: Path) -> None:
    root = _dataset(tmp_path, {"x_group1.py": GOOD_FILE.replace("    user_context: You are Alex.\n", "")})
    with pytest.raises(DatasetError, match="'user_context' is missing") as info:
        parse_task_file(root / "dataset" / "test_case" / "sandbox_external_retail" / "x_group1.py")
    assert info.value.task == "x_group1.py:test_case_A"


def test_missing_task_file_and_missing_task(tmp_path: Path) -> None:
    root = _dataset(tmp_path, {"x_group1.py": GOOD_FILE})
    with pytest.raises(DatasetError, match="task file not found") as missing_file:
        load_task(root, "y_group1.py:test_case_A")
    assert missing_file.value.file == "y_group1.py"
    with pytest.raises(DatasetError, match="no such test function") as missing_task:
        load_task(root, "x_group1.py:test_case_B")
    assert missing_task.value.task == "x_group1.py:test_case_B"


def test_python_syntax_errors_and_bad_ids(tmp_path: Path) -> None:
    root = _dataset(tmp_path, {"x_group1.py": "def broken(:\n"})
    with pytest.raises(DatasetError, match="not valid Python"):
        load_task(root, "x_group1.py:test_case_A")
    with pytest.raises(DatasetError, match="not a task id"):
        load_task(root, "no-colon")


def test_bad_test_lists(tmp_path: Path) -> None:
    listing = tmp_path / "list.yaml"
    with pytest.raises(DatasetError, match="test list not found"):
        read_test_list(listing)
    listing.write_text("a: b\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="YAML list"):
        read_test_list(listing)
    listing.write_text("- a.py:test_x\n- a.py:test_x\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="twice"):
        read_test_list(listing)


def test_missing_and_malformed_scenarios(tmp_path: Path, data_dir: Path) -> None:
    root = _dataset(tmp_path, {})
    with pytest.raises(DatasetError, match="scenario for domain"):
        load_scenario(root, "sandbox_external_retail")
    scenarios = root / "dataset" / "scenario"
    scenarios.mkdir()
    (scenarios / "sandbox_external_retail.yaml").write_text(
        "tools: 3\nbot_instructions: x\n", encoding="utf-8"
    )
    with pytest.raises(DatasetError, match="'tools'"):
        load_scenario(root, "sandbox_external_retail")


def test_git_metadata_wins_over_the_readme(tmp_path: Path, data_dir: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    import subprocess

    root = _dataset(tmp_path, {"x_group1.py": GOOD_FILE}, ["x_group1.py:test_case_A"])
    run = {"cwd": root, "check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q"], **run)  # type: ignore[call-overload]
    subprocess.run(["git", "add", "."], **run)  # type: ignore[call-overload]
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], **run)  # type: ignore[call-overload]
    subprocess.run(["git", "tag", "v-test"], **run)  # type: ignore[call-overload]
    provenance = load_tasks(root).provenance
    assert provenance.how == "git"
    assert provenance.ref.startswith("v-test@")
