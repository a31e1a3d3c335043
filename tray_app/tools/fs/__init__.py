"""File-system access the tools share: safe opens and bounded reads, the walk, the
walk filter, writing helpers and text encodings.
"""
