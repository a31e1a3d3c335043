"""The desktop shell: tray icon, popup window, global hotkey, notifications, single instance.

The only package that imports GUI toolkits (pywebview, pystray, desktop-notifier, gi, Xlib),
and only inside functions or in modules that the desktop app alone imports, so that
``tray_app.core`` and the terminal mode run without them. Start at ``app.main``.
"""
