"""The faces: the command line, the MCP server, the watcher and what they print."""
