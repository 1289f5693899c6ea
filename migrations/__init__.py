"""Alembic migrations for the guard's own tables (``guard db upgrade``)."""
