"""search_files' engine: the run over the walk, name and line matching, ripgrep as
a pre-filter.
"""
