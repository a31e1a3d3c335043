"""The agent: rounds of request -> stream -> tool calls, with approvals and history trimming."""
