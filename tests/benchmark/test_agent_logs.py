"""Agent logs in: tau-bench results files and our JSONL, read into trajectories by :func:`read_agent_logs`.

The tau-bench files here are written by hand in its results format (a JSON
list of ``{task_id, reward, info, traj}``, ``traj`` OpenAI-style chat
messages); no recorded model run is used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.agents import ReplayAgent
from benchmark.dataset.agent_logs import parse_tau_results, read_agent_logs
from benchmark.errors import TrajectoryError
from tests.conftest import ROOT

TAU_DATA = ROOT.parent / "shared" / "tau-bench-airline"


def _call(call_id: str, name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def _run(task_id: int, *turns: dict[str, Any], reward: float = 1.0) -> dict[str, Any]:
    traj = [{"role": "system", "content": "policy"}, {"role": "user", "content": "Hi, I need help."}, *turns]
    return {"task_id": task_id, "reward": reward, "info": {"note": "ignored"}, "trial": 0, "traj": traj}


def _assistant(content: str | None, *calls: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def _tool(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": "x", "content": content}


LOOKUP = _call("c1", "get_user_details", {"user_id": "mia_li_3668"})
CANCEL = _call("c2", "cancel_reservation", {"reservation_id": "ABC123"})

RUN_A = _run(
    3,
    _assistant(None, LOOKUP),
    _tool("c1", "{...}"),
    _assistant("Your reservation ABC123 can be cancelled. Shall I?"),
    {"role": "user", "content": "yes"},
    _assistant("", CANCEL),
    _tool("c2", "{...}"),
    _assistant("Done: ABC123 is cancelled."),
)


def _write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def test_tau_results_give_calls_in_order_with_parsed_arguments_and_the_agents_texts(tmp_path: Path) -> None:
    (only,) = read_agent_logs(_write(tmp_path / "results.json", [RUN_A]))
    assert only.id == "tau_airline/3#0"
    assert only.task == "tau_airline/3"
    assert [(c.tool, c.arguments) for c in only.calls] == [
        ("get_user_details", {"user_id": "mia_li_3668"}),
        ("cancel_reservation", {"reservation_id": "ABC123"}),
    ]
    # blank assistant contents (a call with no text) are not texts; user and tool contents never are
    assert only.messages == (
        "Your reservation ABC123 can be cancelled. Shall I?",
        "Done: ABC123 is cancelled.",
    )
    assert only.final_message == "Done: ABC123 is cancelled."


def test_runs_of_a_task_are_numbered_in_file_order_and_trial_n_plays_run_n(tmp_path: Path) -> None:
    second = _run(3, _assistant("I cannot do that."))
    other = _run(0, _assistant(None, LOOKUP), _tool("c1", "{}"))
    trajectories = read_agent_logs(_write(tmp_path / "results.json", [RUN_A, other, second, RUN_A]))
    assert [t.id for t in trajectories] == [
        "tau_airline/3#0",
        "tau_airline/0#0",
        "tau_airline/3#1",
        "tau_airline/3#2",
    ]
    agent = ReplayAgent.from_trajectories(trajectories)
    assert [agent.script("tau_airline/3", trial).id for trial in range(3)] == [
        "tau_airline/3#0",
        "tau_airline/3#1",
        "tau_airline/3#2",
    ]
    assert agent.script("tau_airline/3", 1).messages == ("I cannot do that.",)
    assert trajectories[1].final_message == ""  # a run with no text says nothing


def test_multi_part_contents_and_several_calls_in_one_message(tmp_path: Path) -> None:
    parts = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Two "}, {"type": "text", "text": "calls."}],
    }
    parts["tool_calls"] = [LOOKUP, _call("c3", "think", "")]
    (only,) = parse_tau_results([_run(7, parts)])
    assert [c.tool for c in only.calls] == ["get_user_details", "think"]
    assert only.calls[1].arguments == {}
    assert only.messages == ("Two calls.",)


def test_jsonl_keeps_its_optional_messages_and_takes_indexed_task_ids(tmp_path: Path) -> None:
    lines = [
        {
            "id": "a",
            "task": "tau_airline/2",
            "calls": [],
            "final_message": "bye",
            "messages": ["23553", "bye"],
        },
        {"id": "b", "task": "x_group1.py:test_one", "calls": [{"tool": "t", "arguments": {}}]},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    first, second = read_agent_logs(path)
    assert (first.task, first.messages, first.final_message) == ("tau_airline/2", ("23553", "bye"), "bye")
    assert second.messages == ()


BAD_ENTRIES = [
    pytest.param(
        {"task_id": "3", "traj": []}, "entry 1: task_id: Input should be a valid integer", id="task_id text"
    ),
    pytest.param(
        {"task_id": -1, "traj": []},
        "entry 1: task_id: Input should be greater than or equal to 0",
        id="negative",
    ),
    pytest.param({"traj": []}, "entry 1: task_id: Field required", id="no task_id"),
    pytest.param({"task_id": 1}, "entry 1: traj: Field required", id="no traj"),
    pytest.param({"task_id": 1, "traj": {}}, "entry 1: traj: Input should be a valid list", id="traj object"),
    pytest.param(
        {"task_id": 1, "traj": [{"content": "hi"}]}, "entry 1: traj[0].role: Field required", id="no role"
    ),
    pytest.param(
        _run(1, _assistant(None, _call("c", "calculate", "{'expression': 1"))),
        "entry 1: traj[2].tool_calls[0].function.arguments: not valid JSON (Expecting property name",
        id="arguments not JSON",
    ),
    pytest.param(
        _run(1, _assistant(None, _call("c", "calculate", "[1, 2]"))),
        "entry 1: traj[2].tool_calls[0].function.arguments: not a JSON object",
        id="arguments a list",
    ),
    pytest.param(
        _run(1, _assistant(None, {"id": "c", "type": "function", "function": {"arguments": "{}"}})),
        "entry 1: traj[2].tool_calls[0].function.name: Field required",
        id="no function name",
    ),
    pytest.param(["not", "an", "object"], "entry 1: not a JSON object", id="entry a list"),
]


@pytest.mark.parametrize(("entry", "message"), BAD_ENTRIES)
def test_a_bad_entry_is_one_error_naming_the_file_the_entry_and_what_is_wrong(
    tmp_path: Path, entry: Any, message: str
) -> None:
    path = _write(tmp_path / "results.json", [RUN_A, entry])
    with pytest.raises(TrajectoryError) as caught:
        read_agent_logs(path)
    assert str(caught.value).startswith(f"{path}: {message}")


def test_a_json_file_that_does_not_parse_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('[\n  {"task_id": 1,\n   "traj": [}\n]\n', encoding="utf-8")
    with pytest.raises(TrajectoryError, match=r"results\.json: not valid JSON: .* \(line 3, column 13\)"):
        read_agent_logs(path)


def test_a_bad_jsonl_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = json.dumps({"id": "a", "task": "tau_airline/2", "calls": []})
    path.write_text(good + "\n" + json.dumps({"id": "b", "task": "tau_airline/x", "calls": []}) + "\n")
    with pytest.raises(TrajectoryError, match=r"t\.jsonl:2: task: String should match pattern"):
        read_agent_logs(path)
    path.write_text(
        good + "\n" + json.dumps({"id": "b", "task": "tau_airline/1", "calls": [], "messages": [1]})
    )
    with pytest.raises(TrajectoryError, match=r"t\.jsonl:2: messages\.0: Input should be a valid string"):
        read_agent_logs(path)


def test_a_json_document_that_is_not_a_list_of_runs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TrajectoryError, match="one JSON list of runs"):
        parse_tau_results({"task_id": 1, "traj": []}, file="x.json")
    with pytest.raises(TrajectoryError, match="trajectory file not found"):
        read_agent_logs(tmp_path / "missing.json")


def _golden_run(task: dict[str, Any], *texts: str) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    for number, action in enumerate(task["actions"]):
        turns.append(_assistant(None, _call(f"c{number}", action["name"], action["kwargs"])))
        turns.append(_tool(f"c{number}", "ok"))
    return _run(task["id"], *turns, *(_assistant(text) for text in texts))


async def test_a_required_output_said_before_the_last_message_passes_the_grade(tmp_path: Path) -> None:
    """tau-bench's output check reads every text of the log, not only the final message."""
    if not (TAU_DATA / "tasks.json").is_file():
        pytest.skip(f"no tau-bench airline data at {TAU_DATA}")
    from benchmark.results import read_results
    from benchmark.run import RunOptions
    from benchmark.run.runner import run_spec
    from benchmark.run.setup import AgentSpec, RunSpec

    task = json.loads((TAU_DATA / "tasks.json").read_text(encoding="utf-8"))[2]
    assert task["outputs"] == ["23553"]
    said = _golden_run(task, "The total is 23,553 dollars.", "Anything else?")
    unsaid = _golden_run(task, "It is done.", "Anything else?")
    logs = _write(tmp_path / "results.json", [said, unsaid])
    spec = RunSpec(data_dir=TAU_DATA, task_ids=("tau_airline/2",), agent=AgentSpec("replay", logs))
    out = tmp_path / "out.jsonl"
    await run_spec(spec, RunOptions(trials=2, arms=("baseline",), seed=0, concurrency=2, out=out))
    graded = {r.trajectory: (r.state_passed, r.passed) for r in read_results(out)}
    assert graded == {"tau_airline/2#0": (True, True), "tau_airline/2#1": (True, False)}
