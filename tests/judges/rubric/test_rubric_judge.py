"""The rubric judge: strict yes/no answers, an explicit token budget, failing closed at the gate."""

from __future__ import annotations

import pytest

from judges import (
    CommitContext,
    Decision,
    JudgeChain,
    ModelError,
    RubricBudgetError,
    RubricParseError,
    Severity,
)
from judges.rubric import ChatReply, ChatRequest, RubricJudge, ScriptedChat, Usage, parse_yes_no


@pytest.mark.parametrize(
    ("text", "answer"),
    [("YES", True), ("yes.", True), (" No! ", False), ("**Yes**", True), ("`no`", False), ('"Yes"\n', True)],
)
def test_answers_that_parse(text: str, answer: bool) -> None:
    assert parse_yes_no(text) is answer


@pytest.mark.parametrize("text", ["Yes, it does", "y", "maybe", "", "YES NO", "Yes\nNo", "Oui"])
def test_answers_that_do_not_parse(text: str) -> None:
    with pytest.raises(RubricParseError, match="expected YES or NO"):
        parse_yes_no(text)


async def test_ask_sends_the_question_and_the_message() -> None:
    model = ScriptedChat(["YES"])
    judge = RubricJudge(model, max_tokens=64)
    answer = await judge.ask("Did the assistant confirm the refund amount?", "Refunded $20 to your card.")
    assert answer.answer is True
    assert answer.raw == "YES"
    (request,) = model.requests
    assert request.max_tokens == 64
    assert request.temperature == 0.0
    assert [m.role for m in request.messages] == ["system", "user"]
    assert "exactly one word: YES or NO" in (request.messages[0].content or "")
    assert "Did the assistant confirm the refund amount?" in (request.messages[1].content or "")
    assert "<<<\nRefunded $20 to your card.\n>>>" in (request.messages[1].content or "")


@pytest.mark.parametrize(
    "reply",
    [
        ChatReply("YES", finish_reason="length", usage=Usage(10, 64, 60)),
        ChatReply("NO", usage=Usage(10, 64, 0)),
        ChatReply("", reasoning="Let me think about the refund...", usage=Usage(10, 40, 40)),
        ChatReply("", usage=Usage(10, 40, 40)),
        ChatReply("<think>The refund was for the wrong order, so", finish_reason="stop", usage=Usage(10, 30)),
    ],
)
async def test_an_exhausted_budget_is_an_error_never_a_no(reply: ChatReply) -> None:
    judge = RubricJudge(ScriptedChat([reply]), max_tokens=64)
    with pytest.raises(RubricBudgetError, match="budget"):
        await judge.ask("q", "m")


async def test_an_empty_answer_without_reasoning_is_a_parse_error() -> None:
    with pytest.raises(RubricParseError, match="empty answer"):
        await RubricJudge(ScriptedChat([ChatReply("")])).ask("q", "m")


async def test_reasoning_inline_before_the_answer() -> None:
    judge = RubricJudge(ScriptedChat(["<think>It says $20, matching.</think>\nYES"]))
    assert (await judge.ask("q", "m")).answer is True


async def test_as_a_commit_judge() -> None:
    model = ScriptedChat(["YES", "NO", "perhaps"])
    judge = RubricJudge(
        model,
        questions=["Is the refund amount stated?", "Is the ticket number given?", "Is it polite?"],
        severity=Severity.ESCALATE,
    )
    verdict = await JudgeChain([judge]).evaluate(CommitContext("t", (), summary="Refunded $20."))
    assert verdict.decision is Decision.BLOCK
    assert [(f.severity, f.message) for f in verdict.findings] == [
        (Severity.ESCALATE, "rubric: no to 'Is the ticket number given?'"),
        (Severity.BLOCK, "rubric question could not be answered: expected YES or NO, got 'perhaps'"),
    ]
    assert (model.requests[0].messages[1].content or "").endswith("Answer YES or NO.")


async def test_all_yes_allows() -> None:
    judge = RubricJudge(ScriptedChat(["yes", "Yes."]), questions=["a?", "b?"])
    assert (await judge.evaluate(CommitContext("t", ()))).decision is Decision.ALLOW


async def test_scripted_chat_answers_from_functions_and_runs_out() -> None:
    def echo(request: ChatRequest) -> str:
        return f"{len(request.messages)} messages"

    model = ScriptedChat([echo])
    model.add(ChatReply("second"))
    assert model.remaining == 2
    assert (await model.complete([], max_tokens=5)).text == "0 messages"
    assert (await model.complete([], max_tokens=5)).text == "second"
    with pytest.raises(ModelError, match="no reply left for request 3"):
        await model.complete([], max_tokens=5)


def test_the_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        RubricJudge(ScriptedChat(), max_tokens=0)
