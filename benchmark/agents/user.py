"""The LLM user simulator: a customer who holds the task's private ``user_context``.

Its first turn is the task's query, verbatim, sent by the agent loop without
asking any model. After that, each agent message goes to the simulator's
model, which answers as the customer (:mod:`.prompts` says how). The
conversation is rendered from the simulator's side: the opening query sits
in its system prompt, the agent's messages are ``user`` turns and its own
earlier replies ``assistant`` turns, so that roles alternate from a user
turn, as every chat template accepts.

The stop token is read deterministically: if it occurs in the reply (after
inline reasoning is dropped), the customer ends the conversation, and
whatever precedes it is the customer's last words. A reply that is empty
without the stop token is a :class:`~benchmark.agents.errors.UserSimulatorError`
(typically a model that spent its budget on reasoning), never a silent end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from benchmark.agents.base import AgentTask
from benchmark.agents.chat import complete, visible_text
from benchmark.agents.errors import UserSimulatorError
from benchmark.agents.prompts import STOP_TOKEN, user_system_prompt
from judges.rubric import ChatMessage, ChatModel, Usage

__all__ = ["Turn", "UserReply", "UserSimulator", "parse_user_reply"]

Speaker = Literal["user", "agent"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the visible conversation."""

    speaker: Speaker
    text: str


@dataclass(frozen=True, slots=True)
class UserReply:
    """The customer's next message (stop token removed), whether it ends the conversation, its cost."""

    text: str
    stop: bool
    usage: Usage = field(default_factory=Usage)


def parse_user_reply(text: str, stop_token: str = STOP_TOKEN) -> tuple[str, bool]:
    """``(message, stop)`` from a raw reply: stop when the token occurs anywhere in the visible text."""
    visible = visible_text(text)
    if stop_token in visible:
        return visible.replace(stop_token, "").strip(), True
    return visible, False


class UserSimulator:
    """Answers the agent as the task's customer, through ``model``."""

    def __init__(
        self,
        model: ChatModel,
        *,
        max_tokens: int = 1024,
        temperature: float | None = None,
        stop_token: str = STOP_TOKEN,
    ) -> None:
        if max_tokens < 1:
            raise ValueError("max_tokens must be positive")
        self.model = model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.stop_token = stop_token

    def messages(self, task: AgentTask, dialogue: Sequence[Turn]) -> list[ChatMessage]:
        """The simulator's view of ``dialogue`` (which starts with the opening query)."""
        rendered = [ChatMessage("system", user_system_prompt(task.query, task.user_context, self.stop_token))]
        for turn in dialogue[1:] if dialogue and dialogue[0].speaker == "user" else dialogue:
            if turn.speaker == "agent":
                rendered.append(ChatMessage("user", turn.text or "(the agent sent an empty message)"))
            else:
                rendered.append(ChatMessage("assistant", turn.text))
        return rendered

    async def reply(self, task: AgentTask, dialogue: Sequence[Turn]) -> UserReply:
        """The customer's answer to the last agent turn of ``dialogue``."""
        answer = await complete(
            self.model,
            self.messages(task, dialogue),
            role="user",
            task=task.id,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
        )
        text, stop = parse_user_reply(answer.text, self.stop_token)
        if not text and not stop:
            raise UserSimulatorError(
                f"the user simulator gave an empty reply (finish_reason {answer.finish_reason!r}, "
                f"{answer.usage.completion_tokens} completion tokens)",
                task=task.id,
            )
        return UserReply(text, stop, answer.usage)
