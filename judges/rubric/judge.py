"""The rubric judge: a yes/no question about a final message, asked through the model seam.

The answer is parsed strictly: after trimming whitespace, punctuation and
markdown emphasis, it must be ``yes`` or ``no`` in any case. Anything else
is a :class:`~judges.errors.RubricParseError`, never a "no".

The token budget is explicit and cannot be spent silently: a completion that
stopped at the budget (``finish_reason == "length"``, or as many completion
tokens as the budget), or that reasoned and then gave no answer (including an
unclosed ``<think>`` block), is a :class:`~judges.errors.RubricBudgetError`
that names the budget and the reasoning tokens spent.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from judges.effects import Effect
from judges.errors import RubricBudgetError, RubricError, RubricParseError
from judges.rubric.model import ChatMessage, ChatModel, ChatReply, Usage
from judges.state import Query
from judges.verdict import CommitContext, Finding, Severity, Verdict

__all__ = ["DEFAULT_SYSTEM_PROMPT", "RubricAnswer", "RubricJudge", "parse_yes_no"]

logger = logging.getLogger(__name__)

DEFAULT_SYSTEM_PROMPT = (
    "You check one message an assistant wrote at the end of a customer-support conversation. "
    "Read the question and the message, then answer with exactly one word: YES or NO."
)

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
    about ``CommitContext.summary``: a "no" is a finding of ``severity``; a
    question that got no usable answer is a blocking finding (fail closed).
    ``temperature`` is sent unless None (some reasoning models refuse it).
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        max_tokens: int = 2048,
        questions: Sequence[str] = (),
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        name: str = "rubric",
        severity: Severity = Severity.BLOCK,
        temperature: float | None = 0.0,
    ) -> None:
        if max_tokens < 1:
            raise ValueError("max_tokens must be positive")
        self.model = model
        self.max_tokens = max_tokens
        self.questions = tuple(questions)
        self.system_prompt = system_prompt
        self.name = name
        self.severity = severity
        self.temperature = temperature

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
        for question in self.questions:
            try:
                answer = await self.ask(question, context.summary)
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


def _split_thinking(text: str) -> tuple[str, str, bool]:
    """(answer, inline reasoning, whether a ``<think>`` block was left open)."""
    match = _THINK.match(text)
    if match is None:
        return text, "", False
    closed = "</think>" in text
    return (match.group(2) if closed else ""), match.group(1), not closed
