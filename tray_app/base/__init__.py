"""The bottom layer every layer may import: errors, events, messages, paths, the runtime
folder, logs and atomic writes. It imports nothing else of the app.
"""
