"""The rule pack's lookups read the tables by a key or a declared index, never by a scan."""

from __future__ import annotations

from benchmark.domains import Domain
from benchmark.domains.booking import SPEC


def test_every_lookup_reads_by_a_key_or_an_index(booking: Domain) -> None:
    for name, lookup in SPEC.rule_pack().lookups.items():
        table = booking.sql[lookup.table]
        columns = {column for column, _ in lookup.where}
        orders = [[c.name for c in table.primary_key.columns]]
        orders += [[c.name for c in index.columns] for index in table.indexes]
        assert any(set(order[: len(columns)]) == columns for order in orders), (name, lookup.table, columns)
