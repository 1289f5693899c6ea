"""The guard's edges: the agent-facing MCP server, the HTTP app and stdio."""
