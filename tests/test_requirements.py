"""Every guarantee in docs/requirements.md is cited by at least one test."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_every_requirement_has_a_test() -> None:
    table = (ROOT / "docs" / "requirements.md").read_text()
    ids = re.findall(r"^\| (G\d+) \|", table, re.MULTILINE)
    assert ids, "no requirements found"
    sources = "\n".join(
        p.read_text() for p in (ROOT / "tests").rglob("test_*.py") if p.name != "test_requirements.py"
    )
    cited = set(re.findall(r"Requirements? ((?:G\d+(?:, )?)+)", sources))
    cited_ids = {part for group in cited for part in group.split(", ")}
    missing = [i for i in ids if i not in cited_ids]
    assert not missing, f"requirements without a test: {missing}"
