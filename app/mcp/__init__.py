"""The MCP server: Mnemo's memory as tools for agents (streamable HTTP at /mcp, or stdio)."""
