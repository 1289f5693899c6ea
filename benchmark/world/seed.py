"""Where a world's rows come from: the domain's seed files and the task's data patch.

A data checkout keeps each toolset's seed rows as JSON lists in folders named
``initial_data`` somewhere under ``servers/``; :func:`seed_dir` finds the
folder they all hang from, and a table's ``seed`` path is relative to it (a
domain that ships its own seed files, not in the checkout, gives absolute
paths). A domain of tau-bench's airline data set has its seed files at the
top of that folder, each a JSON object of records keyed by id (a row is its
record with the key added as the key column when the record lacks it).
Every row, seeded or patched, goes through its table's row model and is kept
in stored (JSON) form. Seeds are read once per process and data directory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmark.dataset.model import Task
from benchmark.domains.base import DataSet, Domain, TableDef
from benchmark.errors import DatasetError, WorldError

__all__ = ["patch_rows", "seed_dir", "seed_rows"]

Rows = dict[str, list[dict[str, Any]]]


def _read_seed(path: Path, table: TableDef) -> list[dict[str, Any]]:
    if not path.is_file():
        raise DatasetError(f"seed file of table {table.benchmark_name} not found", file=path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"seed file is not valid JSON: {exc}", file=path) from exc
    if isinstance(raw, dict) and len(table.key) == 1:
        raw = [
            record if table.key[0] in record else {table.key[0]: key, **record} for key, record in raw.items()
        ]
    if not isinstance(raw, list):
        raise DatasetError("a seed file is a JSON list of rows", file=path)
    rows = []
    for index, row in enumerate(raw):
        try:
            rows.append(table.validate_row(row))
        except (ValidationError, TypeError) as exc:
            raise DatasetError(
                f"seed row {index} does not fit {table.model.__name__}: {exc}", file=path
            ) from exc
    return rows


@lru_cache(maxsize=16)
def _seed_dir(data_dir: Path) -> Path:
    servers = data_dir / "servers"
    folders = sorted(str(path) for path in servers.rglob("initial_data") if path.is_dir())
    if not folders:
        raise DatasetError("no seed rows: no initial_data folder under servers/", file=servers)
    return Path(os.path.commonpath(folders))


def seed_dir(data_dir: Path) -> Path:
    """The folder of ``data_dir`` that every seed file's path (``TableDef.seed``) is relative to."""
    return _seed_dir(data_dir.resolve())


def _seed_file(data_dir: Path, seed: str, dataset: DataSet) -> Path:
    """Where a seed file is: under the data set's seed folder, or where an absolute ``seed`` says."""
    path = Path(seed)
    if path.is_absolute():
        return path
    return (data_dir if dataset == "tau-bench-airline" else _seed_dir(data_dir)) / path


@lru_cache(maxsize=16)
def _seeds(data_dir: Path, domain: Domain) -> Mapping[str, tuple[dict[str, Any], ...]]:
    return {
        table.name: tuple(_read_seed(_seed_file(data_dir, table.seed, domain.dataset), table))
        if table.seed
        else ()
        for table in domain.tables
        if table.hashed or table.seed is not None
    }


def seed_rows(data_dir: Path, domain: Domain) -> Rows:
    """Our table name → the domain's validated seed rows (fresh copies)."""
    return {name: [dict(r) for r in rows] for name, rows in _seeds(data_dir.resolve(), domain).items()}


def patch_rows(domain: Domain, task: Task) -> Rows:
    """Our table name → the task's ``data_patch`` rows, validated, in patch order.

    An unknown table or a row its model rejects fails the whole patch, naming
    the task, the table and the row.
    """
    tables = domain.by_benchmark_name()
    out: Rows = {}
    for name, rows in task.data_patch.items():
        table = tables.get(name)
        if table is None:
            raise WorldError(
                f"data_patch names unknown table {name!r} for domain {domain.name}", task=task.id
            )
        validated = []
        for index, row in enumerate(rows):
            try:
                validated.append(table.validate_row(row))
            except (ValidationError, TypeError) as exc:
                raise WorldError(f"data_patch {name} row {index}: {exc}", task=task.id) from exc
        out[table.name] = validated
    return out
