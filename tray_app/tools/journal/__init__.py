"""The undo journal: snapshots before a change, the shared index, restoring, the
sweep and budget, and the steps a file tool takes around a change.
"""
