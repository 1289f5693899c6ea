"""The audit log: its records and seam, the manager's ledger of writes, the backlog, redaction."""
