"""What a tool may touch: the path resolver (``policy``), the rules by name, the
command blacklist, and what an approval is bound to.
"""
