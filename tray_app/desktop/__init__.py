"""The desktop shell: the app's start and shutdown (``app``), and its rooms: ``tray`` (the icon
and its menu), ``popup`` (the window process and the page's bridge), ``hotkey``, ``notify`` and
``instance`` (the single instance and what its socket answers).

The only package that imports GUI toolkits (pywebview, pystray, desktop-notifier, gi, Xlib),
and only inside functions or in modules that the desktop app alone imports, so that
``tray_app.core`` and the terminal mode run without them. Start at ``app.main``.
"""
