"""The rubric judge and the model seam it asks through.

:class:`ChatModel` is the Protocol; :class:`OpenAIChat` the real client for any
OpenAI-compatible chat-completions endpoint; :class:`ScriptedChat` the shipped
in-memory model. :class:`RubricJudge` asks yes/no questions and parses the
answer strictly.
"""

from judges.rubric.judge import DEFAULT_SYSTEM_PROMPT, RubricAnswer, RubricJudge, parse_yes_no
from judges.rubric.model import ChatMessage, ChatModel, ChatReply, ChatRequest, ScriptedChat, ToolCall, Usage
from judges.rubric.openai import OpenAIChat

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "ChatMessage",
    "ChatModel",
    "ChatReply",
    "ChatRequest",
    "OpenAIChat",
    "RubricAnswer",
    "RubricJudge",
    "ScriptedChat",
    "ToolCall",
    "Usage",
    "parse_yes_no",
]
