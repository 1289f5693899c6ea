"""What the retail tools share: the frozen clocks, datetime text, and the reference's error wrapping."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.exc import SQLAlchemyError

from benchmark.domains.store import DuplicateKey
from guard.errors import ToolError

__all__ = ["FIXED_NOW", "SCENARIO_NOW", "iso", "parse_datetime", "reference_errors", "row_of"]

FIXED_NOW = datetime(2025, 10, 1, 13, 0, 5, tzinfo=UTC)
"""The reference's frozen write time for every retail record."""

SCENARIO_NOW = datetime(2025, 10, 1, 13, 0, tzinfo=UTC)
"""The scenario's "now"; used where the reference reads the wall clock (see the package docstring)."""

_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def parse_datetime(text: str) -> datetime:
    """A stored datetime (the reference's JSON text) as the reference's model holds it."""
    return _DATETIME.validate_python(text)


def iso(text: str | None) -> str | None:
    """``datetime.isoformat()`` of a stored datetime, as the reference's replies carry it."""
    return None if text is None else parse_datetime(text).isoformat()


def row_of(model: type[BaseModel], **fields: Any) -> dict[str, Any]:
    """A new row built and validated by its model, in stored (JSON) form."""
    return model(**fields).model_dump(mode="json")


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
