"""The single instance and what its socket answers: second launches, ``--toggle``,
``doctor``, ``mcp serve``'s link to the app, and the test-only commands.
"""
