"""The model's hands: a tool's declaration (``base``, its answer ``result``), the registry of
them (``registry``), the toolbox a turn runs them through (``toolbox``) and the lasting rules
(``tool_rules``), with the rooms below them: ``builtin`` (the tools themselves), ``sandbox``
(what a tool may touch), ``fs`` (file-system helpers), ``search`` (search_files' engine) and
``journal`` (the undo journal).
"""
