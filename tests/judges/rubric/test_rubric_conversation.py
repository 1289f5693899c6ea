"""The rubric judge over the conversation and the pending changes, configured as a chain entry.

Off by default (no chain names it); tested against the fake OpenAI-compatible server only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judges import (
    CommitContext,
    ConfigError,
    Decision,
    Effect,
    EffectKind,
    Role,
    Severity,
    Turn,
    default_registry,
)
from judges.rubric import RubricJudge, ScriptedChat
from judges.rubric.judge import MAX_EFFECTS, MAX_TEXT_CHARS, MAX_VALUE_CHARS, commit_text
from tests.fakes.openai_server import FakeOpenAIServer

QUESTION = "Did the user explicitly confirm every pending change?"
TALK = (
    Turn(Role.USER, "Please move my flight to Friday."),
    Turn(Role.ASSISTANT, "I will change HAT001 to HAT002 on Friday for $50. Shall I proceed?"),
)
CHANGE = Effect(
    "reservations",
    ("R1",),
    EffectKind.UPDATE,
    {"reservation_id": "R1", "flight": "HAT001"},
    {"reservation_id": "R1", "flight": "HAT002"},
    ("flight",),
)


def context(conversation: tuple[Turn, ...] | None = TALK, **extra: Any) -> CommitContext:
    return CommitContext("t1", (CHANGE,), summary="Moved to Friday.", conversation=conversation, **extra)


def entry(server: FakeOpenAIServer, **options: Any) -> dict[str, Any]:
    return {
        "judge": "rubric",
        "base_url": server.base_url,
        "model": "judge",
        "questions": [QUESTION],
        **options,
    }


def built(options: dict[str, Any]) -> RubricJudge:
    judge = default_registry().build(options, base_dir=Path("."))
    assert isinstance(judge, RubricJudge)
    return judge


def test_the_text_holds_the_conversation_the_changes_and_the_summary() -> None:
    text = commit_text(context())
    assert text == (
        "Conversation:\n"
        "USER: Please move my flight to Friday.\n"
        "ASSISTANT: I will change HAT001 to HAT002 on Friday for $50. Shall I proceed?\n\n"
        "Pending changes:\n"
        '- update reservations R1: flight: "HAT001" -> "HAT002"\n\n'
        "Agent's summary:\nMoved to Friday."
    )


def test_the_text_is_bounded_whatever_the_agent_sends() -> None:
    huge = "x" * 100_000
    talk = tuple(Turn(Role.USER, huge) for _ in range(50))
    rows = tuple(
        Effect("t", (str(i),), EffectKind.INSERT, None, {"id": i, "blob": huge}, ("blob", "id"))
        for i in range(MAX_EFFECTS + 5)
    )
    text = commit_text(CommitContext("t1", rows, summary=huge, conversation=talk))
    limit = MAX_TEXT_CHARS + (MAX_EFFECTS + 1) * (MAX_VALUE_CHARS + 20) + 3_000
    assert len(text) < limit
    assert "[earlier turns left out]" in text
    assert "[5 more changes left out]" in text


async def test_a_no_about_the_conversation_blocks_over_http(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script("NO")
    judge = built(entry(fake_openai))
    verdict = await judge.evaluate(context())
    await judge.aclose()
    assert verdict.decision is Decision.BLOCK
    assert verdict.findings[0].message == f"rubric: no to {QUESTION!r}"
    (request,) = fake_openai.requests
    system, user = (message["content"] for message in request.body["messages"])
    assert "conversation between the customer (user) and the agent" in system
    assert "USER: Please move my flight to Friday." in user
    assert '- update reservations R1: flight: "HAT001" -> "HAT002"' in user
    assert QUESTION in user


async def test_a_yes_allows(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script("YES")
    judge = built(entry(fake_openai, severity="escalate"))
    assert (await judge.evaluate(context())).decision is Decision.ALLOW
    await judge.aclose()


async def test_without_the_conversation_it_warns_unjudged_and_asks_nothing() -> None:
    model = ScriptedChat(["NO"])
    judge = RubricJudge(model, questions=[QUESTION], subject="conversation")
    verdict = await judge.evaluate(context(conversation=None))
    assert verdict.decision is Decision.ALLOW
    (finding,) = verdict.findings
    assert finding.severity is Severity.WARN
    assert finding.evidence == {"question": QUESTION, "not_judged": "conversation"}
    assert model.requests == []


async def test_a_summary_judge_still_asks_about_the_summary_alone() -> None:
    model = ScriptedChat(["YES"])
    await RubricJudge(model, questions=[QUESTION]).evaluate(context(conversation=None))
    assert "<<<\nMoved to Friday.\n>>>" in (model.requests[0].messages[1].content or "")


async def test_an_unanswerable_model_blocks(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script("Perhaps.")
    judge = built(entry(fake_openai))
    verdict = await judge.evaluate(context())
    await judge.aclose()
    assert verdict.decision is Decision.BLOCK
    assert "could not be answered" in verdict.findings[0].message


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"questions": []}, "questions"),
        ({"subject": "diff"}, "subject"),
        ({"base_url": "file:///etc/passwd"}, "base_url"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"api_key_env": "GUARD_TEST_NO_SUCH_KEY"}, "GUARD_TEST_NO_SUCH_KEY is not set"),
    ],
)
def test_a_bad_entry_is_a_config_error(options: dict[str, Any], error: str) -> None:
    base = {"judge": "rubric", "base_url": "http://127.0.0.1:9/v1", "model": "m", "questions": ["q?"]}
    with pytest.raises(ConfigError, match=error):
        default_registry().build({**base, **options}, base_dir=Path("."))


async def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GUARD_TEST_RUBRIC_KEY", "sk-rubric")
    with FakeOpenAIServer(["YES"], api_key="sk-rubric") as server:
        judge = built(entry(server, api_key_env="GUARD_TEST_RUBRIC_KEY"))
        assert (await judge.evaluate(context())).decision is Decision.ALLOW
        await judge.aclose()
