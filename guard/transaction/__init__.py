"""The transaction: its state machine, the manager that drives it, keys, limits, replies and recovery."""
