"""The tray icon: its menu, its drawing and badges, the modes it switches, and
why a menu action failed.
"""
