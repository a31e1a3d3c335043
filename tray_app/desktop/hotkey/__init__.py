"""The global hotkey: the setting parsed (``keys``), the manager that picks a backend
(``hotkey``), and one backend per platform.
"""
