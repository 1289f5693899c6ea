"""Shipped fakes for the I/O seams tests must not cross: a fake OpenAI-compatible server."""
