"""A notes server on the 1.x Python SDK (handshake-era protocol, HTTP sessions), an upstream for tests.

    <venv with mcp 1.x>/bin/python tests/fakes/v1_http_notes.py PORT

Run by a virtual environment of its own (``.ci/upstreams/venv``, mcp 1.x): it is not imported by the
guard's tests, which use the 2.x SDK. Its sessions live in memory, so a restart forgets them, as a real
server's would.
"""

import sys

from mcp.server.fastmcp import FastMCP

app = FastMCP("notes", host="127.0.0.1", port=int(sys.argv[1]))
notes: list[str] = []


@app.tool()
def add_note(text: str) -> str:
    """Add a note."""
    notes.append(text)
    return f"note {len(notes)} added"


@app.tool(annotations={"readOnlyHint": True})
def list_notes() -> list[str]:
    """Every note, oldest first."""
    return notes


if __name__ == "__main__":
    app.run("streamable-http")
