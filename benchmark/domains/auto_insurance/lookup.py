"""Lookups: the mock VIN decoder.

A VIN (trimmed, upper-cased) must be 17 letters and digits. The decoder
reads the model year from the tenth character (A = 2010 … R = 2024) and the
make from the first three (a handful of manufacturer codes, each with one
model); anything it does not know is left out of the answer.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from benchmark.domains.auto_insurance.common import reference_errors
from guard.errors import InvalidArguments
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

_YEARS = dict(zip("ABCDEFGHJKLMNPR", range(2010, 2025), strict=True))
_MAKES = {
    "1HG": ("Honda", "Accord"),
    "2HG": ("Honda Canada", None),
    "1FA": ("Ford", "Focus"),
    "1FT": ("Ford Truck", "F-150"),
    "5YJ": ("Tesla", "Model S"),
}


class VinArgs(BaseModel):
    vin: str = Field(description="Vehicle identification number (17 characters)")


class VinDecodeResult(BaseModel):
    valid: bool
    year: int | None = None
    make: str | None = None
    model: str | None = None


@tools.tool(write=False)
async def lookup_validate_vin(ctx: ToolContext, args: VinArgs) -> VinDecodeResult:
    """Check a VIN's format and decode what the mock decoder knows: model year, make and model."""
    with reference_errors():
        vin = args.vin.strip().upper()
        if len(vin) != 17:
            raise InvalidArguments("Invalid VIN format. VIN must be exactly 17 characters.")
        if not vin.isalnum():
            raise InvalidArguments("Invalid VIN format. VIN must contain only letters and numbers.")
        make, model = _MAKES.get(vin[:3], (None, None))
        return VinDecodeResult(valid=True, year=_YEARS.get(vin[9]), make=make, model=model)
