"""What the consulting tools share: frozen clocks, new ids, datetime text, the reference's errors.

New ids of the consulting systems take the first unused
``<PREFIX>-{n:06d}`` for n = 0, 1, … (``APR-2-000000`` first). The only
consulting write that stamps a time is ``client_access_api`` ``revoke_vpn``
(:data:`VPN_REVOKED_AT`); Zendesk stamps its own (:mod:`.zendesk`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.exc import SQLAlchemyError

from benchmark.domains.store import DuplicateKey, first_unused
from guard.errors import InvalidArguments, ToolError

__all__ = [
    "SCENARIO_NOW",
    "VPN_REVOKED_AT",
    "iso",
    "new_id",
    "reference_errors",
    "require",
    "row_of",
]

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now" (no consulting tool reads the wall clock)."""

VPN_REVOKED_AT = "2025-10-01T00:00:00Z"
"""The reference's frozen ``revoked_at`` of a revoked VPN access (2025-10-01 00:00 UTC), as stored."""

_T = TypeVar("_T")

_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def iso(text: str | None) -> str | None:
    """``datetime.isoformat()`` of a stored datetime, as the reference's replies carry it."""
    return None if text is None else _DATETIME.validate_python(text).isoformat()


def row_of(model: type[BaseModel], **fields: Any) -> dict[str, Any]:
    """A new row built and validated by its model, in stored (JSON) form."""
    return model(**fields).model_dump(mode="json")


def new_id(existing: Iterable[Any], prefix: str) -> str:
    """The first ``<prefix>-{n:06d}`` (n = 0, 1, …) not among ``existing``."""
    return first_unused(existing, prefix + "-{:06d}", 0)


def require(value: _T | None, name: str) -> _T:
    """``value``, an argument an action needs; missing, ``None`` or empty is refused as the reference does."""
    if not value:
        raise InvalidArguments(f"Missing required parameter: {name}")
    return value


@contextmanager
def reference_errors(action: str) -> Iterator[None]:
    """Turn an unexpected failure into the reference's ``Failed to <action>: <error>`` tool error.

    Tool errors pass through unchanged; database errors propagate so that the
    caller can classify them.
    """
    try:
        yield
    except (ToolError, SQLAlchemyError):
        raise
    except ValidationError as exc:
        raise ToolError(f"Failed to {action}: {exc}", error_class="invalid_arguments") from exc
    except DuplicateKey as exc:
        raise ToolError(f"Failed to {action}: {exc}", error_class="precondition_failed") from exc
    except Exception as exc:
        raise ToolError(f"Failed to {action}: {exc}") from exc
