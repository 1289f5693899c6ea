"""The conversation an agent's host hands the guard: its wire form, its limits, a transaction's collection.

A host (the program that runs the model and talks to the user) may send, with any ``tools/call`` (a
backend's tool, the commit tool, the rollback tool), ``_meta["guard/conversation"]``: the turns said
since the previous call of the transaction, in order, each ``{"role": "user" | "assistant", "text":
"..."}``. The guard never asks for it. Not sending it (the default) means the host hands none; sending
``[]`` means nothing was said. The admin API's commit takes the same list as ``conversation``.

At the edge (:func:`said_in`, :func:`checked`) a list that is not turns, a role other than the two, a
text that is not a string, an unknown key, or more than ``limits.max_turns_per_request`` turns or
``limits.max_conversation_bytes_per_request`` bytes (its compact JSON, UTF-8) is refused with
:class:`~guard.errors.InvalidConversation`, before anything runs: the host, not the model, must fix
it. The error names where and what, never the text. Any text is taken as data: the audit log makes it
storable (:mod:`guard.store.storable`), and it never reaches a span, a log line or markup.

A call's turns count toward ``limits.max_argument_bytes_per_transaction`` with its arguments
(:func:`size`); a commit's are bounded by the per-request limits alone, so that talk never stops a
commit. The transaction keeps what it was handed in order (:class:`Conversation`): each call's turns
as that call is recorded, then each commit attempt's. Its :attr:`Conversation.turns` is what the
judges read (``CommitContext.conversation``): None while the host has sent none for the transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from guard.errors import InvalidConversation
from guard.settings import LimitSettings
from judges import Role, Turn

__all__ = ["META_KEY", "Conversation", "TurnIn", "checked", "said_in", "size", "turns_data"]

META_KEY = "guard/conversation"
"""The ``_meta`` key of a ``tools/call`` that carries the turns said since the previous call."""

_SHAPE = '[{"role": "user" | "assistant", "text": "..."}, ...]'


class TurnIn(BaseModel):
    """One turn as a host sends it (the wire's and the admin API's form)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    role: Literal["user", "assistant"]
    text: str


_TURNS = TypeAdapter(list[TurnIn])


def _problem(error: ValidationError) -> str:
    """Where and what, never the input (a host's text stays out of errors)."""
    first = error.errors(include_url=False, include_input=False)[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
    return f"{where.lstrip('.') or 'the value'}: {first['msg']}"


def checked(raw: object, limits: LimitSettings, source: str = f"_meta[{META_KEY!r}]") -> tuple[Turn, ...]:
    """``raw`` as turns within the per-request limits; else :class:`InvalidConversation` naming ``source``."""
    try:
        parsed = _TURNS.validate_python(raw)
    except ValidationError as exc:
        raise InvalidConversation(f"{source} is not a list of turns {_SHAPE}: {_problem(exc)}") from exc
    if len(parsed) > limits.max_turns_per_request:
        raise InvalidConversation(
            f"{source} holds {len(parsed)} turns, the limit is {limits.max_turns_per_request} "
            "(limits.max_turns_per_request): send only the turns said since the previous call"
        )
    turns = tuple(Turn(Role(t.role), t.text) for t in parsed)
    if (bytes_ := size(turns)) > limits.max_conversation_bytes_per_request:
        raise InvalidConversation(
            f"{source} holds {bytes_} bytes, the limit is {limits.max_conversation_bytes_per_request} "
            "(limits.max_conversation_bytes_per_request): send only the turns said since the previous call"
        )
    return turns


def said_in(meta: Mapping[str, Any] | None, limits: LimitSettings) -> tuple[Turn, ...] | None:
    """The turns a request's ``_meta`` hands over; None when it carries no :data:`META_KEY`."""
    if meta is None or META_KEY not in meta:
        return None
    return checked(meta[META_KEY], limits)


def size(turns: Sequence[Turn] | None) -> int:
    """The bytes ``turns`` cost: their compact JSON as UTF-8 (an unpaired surrogate counted as written)."""
    if not turns:
        return 0
    text = json.dumps(turns_data(turns), separators=(",", ":"), ensure_ascii=False)
    return len(text.encode(errors="surrogatepass"))


def turns_data(turns: Sequence[Turn] | None) -> list[dict[str, str]] | None:
    """``turns`` as the log's and the wire's JSON (None stays None: nothing was handed over)."""
    return None if turns is None else [turn.to_dict() for turn in turns]


@dataclass(frozen=True, slots=True)
class Conversation:
    """What the host handed over for one transaction, in order; ``turns`` None until it hands any."""

    turns: tuple[Turn, ...] | None = None

    def after(self, said: tuple[Turn, ...] | None) -> Conversation:
        """This conversation with ``said`` (one request's turns) added; unchanged when it carried none."""
        if said is None:
            return self
        return Conversation((self.turns or ()) + said)
