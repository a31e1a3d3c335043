"""MCP client: any Model Context Protocol server's tools, behind the app's own approvals.

``config`` (the settings shape), ``connection`` (one server's life), ``manager`` (all servers
on their own loop), ``naming`` (names, schema, risk), ``results`` (what the model and the card
get), ``tools`` (registry entries), ``sandbox`` (bubblewrap). The SDK is imported on first use.
"""
