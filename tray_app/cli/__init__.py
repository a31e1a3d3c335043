"""Every entry point: ``metona-tray`` and its commands (``cli``), the terminal mode and
its rendering, ``doctor``, ``changes``, ``rules``, ``models``, ``mcp`` and ``mcp serve``.
"""
