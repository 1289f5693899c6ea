"""The commit gate: the judge chain over a transaction's end state, and the pool that isolates hung judges."""
