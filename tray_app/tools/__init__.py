"""The model's hands: tool declarations (``base``), the registry of them (``registry``), the
toolbox a turn runs them through (``toolbox``), the sandbox policy, the tools, the undo journal.
"""
