"""WebKitGTK's typelib (PyInstaller has no hook for it). Its shared library is left to the
system on purpose: see metona-tray.spec (it must match the system's WebKit helper processes)."""

from PyInstaller.utils.hooks.gi import GiModuleInfo

module_info = GiModuleInfo("WebKit2", "4.1")
if not module_info.available:
    module_info = GiModuleInfo("WebKit2", "4.0")
if module_info.available:
    binaries, datas, hiddenimports = module_info.collect_typelib_data()
    hiddenimports += ["gi.repository.JavaScriptCore", "gi.repository.Soup"]
