"""benchmark: ThinkingBox-Bench v1.0 replayed through our own tools, with and without the guard."""

__all__: list[str] = []
