"""JavaScriptCore's typelib, a dependency of WebKit2's (no PyInstaller hook exists)."""

from PyInstaller.utils.hooks.gi import GiModuleInfo

module_info = GiModuleInfo("JavaScriptCore", "4.1")
if not module_info.available:
    module_info = GiModuleInfo("JavaScriptCore", "4.0")
if module_info.available:
    binaries, datas, hiddenimports = module_info.collect_typelib_data()
