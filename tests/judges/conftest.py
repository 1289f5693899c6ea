"""Fixtures shared by the judges tests: the fake OpenAI server and small builders."""

from __future__ import annotations

from tests.fakes.openai_server import fake_openai

__all__ = ["fake_openai"]
