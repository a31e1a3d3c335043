"""Metona Tray: a tray chat with a local model that works on your files through approved tools."""

__version__ = "0.1.0"
