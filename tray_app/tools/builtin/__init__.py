"""The built-in tools, one module each (arguments, handler, preview and ``TOOL``),
and the helpers only they share. ``files`` lists the file tools in the model's order.
"""
