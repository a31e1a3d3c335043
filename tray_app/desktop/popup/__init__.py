"""The popup: the pywebview window, its navigation lock and the thin js_api bridge.

In the desktop app this package runs in its own ``multiprocessing`` child (``child.py``); the
tray process talks to it over one authenticated connection (``link.py``). Importing the
package imports no GUI toolkit: ``wire``, ``delivery`` and ``guard`` are plain Python, so the
tray side and the tests use them without pywebview.
"""
