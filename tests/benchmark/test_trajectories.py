"""The trajectory file format of ``--agent replay --trajectories``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.dataset import parse_trajectory_line, read_trajectories
from benchmark.errors import TrajectoryError

LINE = {
    "id": "t1",
    "task": "sandbox_external_retail_group1.py:test_case_ST003_006",
    "calls": [{"tool": "get_order", "arguments": {"order_id": "ORD-10000020"}}],
    "final_message": "Done.",
}


def _write(path: Path, *lines: object) -> Path:
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8"
    )
    return path


def test_a_valid_file_is_read_in_order(tmp_path: Path) -> None:
    second = {**LINE, "id": "t2", "calls": [], "final_message": None}
    trajectories = read_trajectories(_write(tmp_path / "t.jsonl", LINE, "", second))
    assert [t.id for t in trajectories] == ["t1", "t2"]
    assert trajectories[0].calls[0].tool == "get_order"
    assert trajectories[0].calls[0].arguments == {"order_id": "ORD-10000020"}
    assert trajectories[1].final_message == ""


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "one JSON object"),
        ({**LINE, "task": "no-colon"}, "task: String should match pattern"),
        ({**LINE, "calls": [{"tool": "", "arguments": {}}]}, "calls.0.tool"),
        ({**LINE, "calls": [{"tool": "x", "arguments": []}]}, "calls.0.arguments"),
        ({**LINE, "extra": 1}, "extra: Extra inputs are not permitted"),
        ({k: v for k, v in LINE.items() if k != "id"}, "id: Field required"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path: Path, line: object, message: str) -> None:
    path = _write(tmp_path / "t.jsonl", LINE, line)
    with pytest.raises(TrajectoryError, match=message) as info:
        read_trajectories(path)
    assert info.value.line == 2
    assert str(path) in str(info.value)


def test_duplicate_ids_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(TrajectoryError, match="duplicate trajectory id 't1'"):
        read_trajectories(_write(tmp_path / "t.jsonl", LINE, LINE))
    with pytest.raises(TrajectoryError, match="not found"):
        read_trajectories(tmp_path / "missing.jsonl")


def test_a_single_line_parses_from_text() -> None:
    assert parse_trajectory_line(json.dumps(LINE)).task.endswith(":test_case_ST003_006")
