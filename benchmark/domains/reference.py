"""What the reference's tools do alike in every domain: new rows, datetime text and failures.

A new row is built and validated by its model and stored in its JSON form
(:func:`row_of`); a stored datetime is the reference's JSON text, read back
as the reference's model holds it (:func:`parse_datetime`) and replied as
``datetime.isoformat()`` (:func:`iso`). An unexpected failure inside a tool
becomes a tool error with the reference's text (:func:`reference_errors`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.exc import SQLAlchemyError

from benchmark.domains.store import DuplicateKey
from guard.errors import InvalidArguments, PreconditionFailed, ToolError

__all__ = ["iso", "parse_datetime", "reference_errors", "row_of"]

_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def row_of(model: type[BaseModel], /, **fields: Any) -> dict[str, Any]:
    """A new row built and validated by its model, in stored (JSON) form."""
    return model(**fields).model_dump(mode="json")


def parse_datetime(text: str) -> datetime:
    """A stored datetime (the reference's JSON text) as the reference's model holds it."""
    return _DATETIME.validate_python(text)


def iso(text: str | None) -> str | None:
    """``datetime.isoformat()`` of a stored datetime, as the reference's replies carry it."""
    return None if text is None else parse_datetime(text).isoformat()


@contextmanager
def reference_errors(action: str | None = None, *, invalid_models: bool = True) -> Iterator[None]:
    """Turn an unexpected failure into a tool error with the reference's text.

    With ``action`` the text is ``Failed to <action>: <error>`` (the tools
    that wrap their failures); without, it is the bare error (the tools that
    let them through). A duplicate key is a failed precondition, and a model
    that refuses its fields invalid arguments (unless ``invalid_models`` is
    false: then, like any other failure, an internal error). Tool errors pass
    through unchanged; database errors propagate so that the caller can
    classify them.
    """
    prefix = "" if action is None else f"Failed to {action}: "
    try:
        yield
    except (ToolError, SQLAlchemyError):
        raise
    except ValidationError as exc:
        if invalid_models:
            raise InvalidArguments(f"{prefix}{exc}") from exc
        raise ToolError(f"{prefix}{exc}") from exc
    except DuplicateKey as exc:
        raise PreconditionFailed(f"{prefix}{exc}") from exc
    except Exception as exc:
        raise ToolError(f"{prefix}{exc}") from exc
