"""What the HorizonShield tools share: the clocks, content-hash ids and the reference's error wrapping.

The insurance tools stamp no time of their own: a new claim's
``created_date`` is its ``date_of_loss`` and a document link's
``created_at`` its ``expiration_date``. Only the Zendesk copy writes frozen
times (see :mod:`.schema`). New policy records get content-hash ids, so
repeating a create finds the row it made before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlalchemy.exc import SQLAlchemyError

from benchmark.domains.store import DuplicateKey
from guard.errors import PreconditionFailed, ToolError

__all__ = ["SCENARIO_NOW", "content_id", "reference_errors"]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (no insurance tool reads a clock)."""


def content_id(prefix: str, seed: str, length: int) -> str:
    """``prefix`` + the first ``length`` hex digits (upper case) of SHA-256 of ``seed``."""
    return prefix + hashlib.sha256(seed.encode()).hexdigest()[:length].upper()


@contextmanager
def reference_errors() -> Iterator[None]:
    """Report an unexpected failure as the reference does: its bare message as a tool error.

    Tool errors pass through unchanged; database errors propagate so that the
    caller can classify them.
    """
    try:
        yield
    except (ToolError, SQLAlchemyError):
        raise
    except DuplicateKey as exc:
        raise PreconditionFailed(str(exc)) from exc
    except Exception as exc:
        raise ToolError(str(exc)) from exc
