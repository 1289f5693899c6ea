"""The transaction: its state machine and protocol, the manager that drives them, keys, limits,
replies and recovery."""
