"""The rubric judge: a yes/no question about a final message, asked through the model seam.

The answer is parsed strictly: after trimming whitespace, punctuation and
markdown emphasis, it must be ``yes`` or ``no`` in any case. Anything else
is a :class:`~judges.errors.RubricParseError`, never a "no".

The token budget is explicit and cannot be spent silently: a completion that
stopped at the budget (``finish_reason == "length"``, or as many completion
tokens as the budget), or that reasoned and then gave no answer (including an
unclosed ``<think>`` block), is a :class:`~judges.errors.RubricBudgetError`
that names the budget and the reasoning tokens spent.

As a commit judge it asks about the commit's summary (``subject="summary"``)
or, as an option, about the conversation the host handed over together with
the pending changes and the summary (``subject="conversation"``): a commit
without a conversation is then not judged (one warning per question, no
request to the model), as the deterministic conversation rules do. The text
is bounded (:data:`MAX_VALUE_CHARS` per value, :data:`MAX_TURN_CHARS` per
turn, the latest :data:`MAX_TEXT_CHARS` of the conversation, the first
:data:`MAX_EFFECTS` changes) so one agent's long input cannot buy a huge prompt.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from judges.canonical import canonical_json, canonical_value
from judges.effects import Effect, EffectKind
from judges.errors import RubricBudgetError, RubricError, RubricParseError
from judges.rubric.model import ChatMessage, ChatModel, ChatReply, Usage
from judges.state import Query
from judges.verdict import CommitContext, Finding, Severity, Verdict

__all__ = [
    "CONVERSATION_SYSTEM_PROMPT",
    "DEFAULT_SYSTEM_PROMPT",
    "RubricAnswer",
    "RubricJudge",
    "commit_text",
    "parse_yes_no",
]

logger = logging.getLogger(__name__)

DEFAULT_SYSTEM_PROMPT = (
    "You check one message an assistant wrote at the end of a customer-support conversation. "
    "Read the question and the message, then answer with exactly one word: YES or NO."
)

CONVERSATION_SYSTEM_PROMPT = (
    "You review a change an AI agent is about to commit to a business system. You are given the "
    "conversation between the customer (user) and the agent, the pending changes, and the agent's "
    "summary. Read the question and the material, then answer with exactly one word: YES or NO."
)

Subject = Literal["summary", "conversation"]

MAX_VALUE_CHARS = 300
MAX_TURN_CHARS = 2_000
MAX_TEXT_CHARS = 16_000
MAX_EFFECTS = 40

_TRIM = " \t\r\n.,;:!?*_`'\"()[]"
_THINK = re.compile(r"^\s*<think>(.*?)(?:</think>|$)(.*)$", re.DOTALL)


def parse_yes_no(text: str) -> bool:
    """``True`` for yes, ``False`` for no; anything else raises :class:`RubricParseError`."""
    word = text.strip(_TRIM).lower()
    if word == "yes":
        return True
    if word == "no":
        return False
    shown = text if len(text) <= 80 else text[:77] + "..."
    raise RubricParseError(f"expected YES or NO, got {shown!r}")


@dataclass(frozen=True, slots=True)
class RubricAnswer:
    question: str
    answer: bool
    raw: str
    usage: Usage


class RubricJudge:
    """Asks yes/no questions about a message; as a commit judge, about the commit's summary.

    As an :class:`~judges.chain.AsyncJudge` it asks each of ``questions``
    about ``CommitContext.summary`` (``subject="conversation"``: about the
    conversation, the pending changes and the summary, see :func:`commit_text`):
    a "no" is a finding of ``severity``; a question that got no usable answer
    is a blocking finding (fail closed). ``temperature`` is sent unless None
    (some reasoning models refuse it). With ``owns_model`` the judge's
    :meth:`aclose` closes the model's client (the gate calls it on shutdown).
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        max_tokens: int = 2048,
        questions: Sequence[str] = (),
        system_prompt: str | None = None,
        name: str = "rubric",
        severity: Severity = Severity.BLOCK,
        temperature: float | None = 0.0,
        subject: Subject = "summary",
        owns_model: bool = False,
    ) -> None:
        if max_tokens < 1:
            raise ValueError("max_tokens must be positive")
        if subject not in ("summary", "conversation"):
            raise ValueError(f"subject must be 'summary' or 'conversation', not {subject!r}")
        if system_prompt is None:
            system_prompt = DEFAULT_SYSTEM_PROMPT if subject == "summary" else CONVERSATION_SYSTEM_PROMPT
        self.subject: Subject = subject
        self.owns_model = owns_model
        self.model = model
        self.max_tokens = max_tokens
        self.questions = tuple(questions)
        self.system_prompt = system_prompt
        self.name = name
        self.severity = severity
        self.temperature = temperature

    async def aclose(self) -> None:
        """Close the model's client when the judge was built with it (``owns_model``)."""
        close = getattr(self.model, "aclose", None)
        if self.owns_model and close is not None:
            await close()

    async def ask(self, question: str, message: str) -> RubricAnswer:
        """The model's yes/no answer to ``question`` about ``message``."""
        prompt = f"Question: {question}\n\nMessage:\n<<<\n{message}\n>>>\n\nAnswer YES or NO."
        messages = [ChatMessage("system", self.system_prompt), ChatMessage("user", prompt)]
        reply = await self.model.complete(messages, max_tokens=self.max_tokens, temperature=self.temperature)
        return RubricAnswer(question, self._answer(reply), reply.text, reply.usage)

    def _answer(self, reply: ChatReply) -> bool:
        text, inline_reasoning, unclosed = _split_thinking(reply.text)
        spent = f"{reply.usage.completion_tokens} completion tokens, {reply.usage.reasoning_tokens} reasoning"
        if reply.finish_reason == "length" or unclosed:
            raise RubricBudgetError(
                f"the model stopped at its token budget ({self.max_tokens}) before answering ({spent})"
            )
        if reply.usage.completion_tokens >= self.max_tokens:
            raise RubricBudgetError(f"the model used its whole token budget ({self.max_tokens}; {spent})")
        if not text.strip():
            if reply.reasoning or inline_reasoning or reply.usage.reasoning_tokens:
                raise RubricBudgetError(
                    f"the model reasoned and gave no answer (budget {self.max_tokens}; {spent})"
                )
            raise RubricParseError("the model gave an empty answer")
        return parse_yes_no(text)

    def queries(self, effects: Sequence[Effect]) -> Sequence[Query]:
        return ()

    async def evaluate(self, context: CommitContext) -> Verdict:
        findings: list[Finding] = []
        if self.subject == "conversation" and context.conversation is None:
            return Verdict.of(
                [
                    Finding(
                        self.name,
                        Severity.WARN,
                        f"rubric question {question!r} reads the conversation, which the agent's host"
                        " did not hand over: not judged",
                        evidence={"question": question, "not_judged": "conversation"},
                    )
                    for question in self.questions
                ]
            )
        message = context.summary if self.subject == "summary" else commit_text(context)
        for question in self.questions:
            try:
                answer = await self.ask(question, message)
            except RubricError as exc:
                logger.warning("rubric question could not be answered: %s", exc)
                findings.append(
                    Finding(
                        self.name,
                        Severity.BLOCK,
                        f"rubric question could not be answered: {exc}",
                        evidence={"question": question, "error": type(exc).__name__},
                    )
                )
                continue
            if not answer.answer:
                findings.append(
                    Finding(
                        self.name,
                        self.severity,
                        f"rubric: no to {question!r}",
                        evidence={"question": question},
                    )
                )
        return Verdict.of(findings)


def commit_text(context: CommitContext) -> str:
    """The conversation, the pending changes and the summary of a commit, as one bounded text."""
    said = context.conversation or ()
    turns = [f"{turn.role.value.upper()}: {_clip(turn.text, MAX_TURN_CHARS)}" for turn in said]
    conversation = "\n".join(turns)
    if len(conversation) > MAX_TEXT_CHARS:
        conversation = "[earlier turns left out]\n" + conversation[-MAX_TEXT_CHARS:]
    changes = [_change(effect) for effect in context.effects[:MAX_EFFECTS]]
    if len(context.effects) > MAX_EFFECTS:
        changes.append(f"[{len(context.effects) - MAX_EFFECTS} more changes left out]")
    return (
        f"Conversation:\n{conversation or '(none)'}\n\n"
        f"Pending changes:\n{chr(10).join(changes) or '(none)'}\n\n"
        f"Agent's summary:\n{_clip(context.summary, MAX_TURN_CHARS) or '(none)'}"
    )


def _change(effect: Effect) -> str:
    where = f"{effect.table} {effect.key_text}"
    if effect.kind is EffectKind.UPDATE and effect.before is not None and effect.after is not None:
        fields = "; ".join(
            f"{name}: {_value(effect.before.get(name))} -> {_value(effect.after.get(name))}"
            for name in effect.changed_fields
        )
        return f"- update {where}: {fields}"
    row = effect.after if effect.kind is not EffectKind.DELETE else effect.before
    return f"- {effect.kind.value} {where}: {_value(row)}"


def _value(value: Any) -> str:
    return _clip(canonical_json(canonical_value(value)), MAX_VALUE_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _split_thinking(text: str) -> tuple[str, str, bool]:
    """(answer, inline reasoning, whether a ``<think>`` block was left open)."""
    match = _THINK.match(text)
    if match is None:
        return text, "", False
    closed = "</think>" in text
    return (match.group(2) if closed else ""), match.group(1), not closed
