; Windows installer for Metona Tray (Inno Setup 6; this file is UTF-8 with a BOM, which Inno Setup needs for
; the Chinese text): iscc /DAppVersion=0.1.0 packaging\windows\metona-tray.iss
; Input: dist\metona-tray\ from packaging/metona-tray.spec (metona-tray.exe, the GUI program;
; metona-tray-cli.exe, the terminal mode and --self-test; rg.exe next to them).
; Output: dist\metona-tray-<version>-setup.exe.
; Written from Inno Setup's documentation; NOT RUN on this project's machines (Linux only):
; .github/workflows/release.yml builds it on a hosted Windows runner.
;
; Per-user install by default (no administrator rights; the dialog offers all users). Start menu
; entry, an uninstaller (Settings > Apps), and start at login as an unchecked task that writes
; the same Run value the app's own "Start at login" setting uses (tray_app/desktop/autostart.py),
; so either can turn it off. Uninstall removes the program and that Run value; settings, chats
; and logs in %LOCALAPPDATA%\metona-tray stay (Inno Setup removes only what it installed).

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif
#define AppName "Metona Tray"
#define AppExe "metona-tray.exe"

[Setup]
AppId={{5E0C2B8B-7A53-4C1E-9E07-6F1D2B3C4A10}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=Metona Tray developers
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
OutputDir=..\..\dist
OutputBaseFilename=metona-tray-{#AppVersion}-setup
SetupIconFile=..\..\build\metona-tray\icons\metona-tray.ico
UninstallDisplayIcon={app}\{#AppExe}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
CloseApplications=yes
RestartApplications=no
ShowLanguageDialog=auto

; Simplified Chinese is one of Inno Setup's unofficial translations: used when the compiler
; has it (Languages\Unofficial\ChineseSimplified.isl), else the installer is English only.
#define ZhCN FileExists(CompilerPath + "Languages\Unofficial\ChineseSimplified.isl")

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"
#if ZhCN
Name: "zh_CN"; MessagesFile: "compiler:Languages\Unofficial\ChineseSimplified.isl"
#endif

[CustomMessages]
en.StartAtLogin=Start {#AppName} when I sign in
en.Shortcuts=Shortcuts:
en.DesktopIcon=Create a &desktop shortcut
en.LaunchNow=Start {#AppName} now
en.AppComment=A tray chat with a local model that works on your files, with your approval
#if ZhCN
zh_CN.StartAtLogin=登录时启动 {#AppName}
zh_CN.Shortcuts=快捷方式：
zh_CN.DesktopIcon=创建桌面快捷方式(&D)
zh_CN.LaunchNow=立即启动 {#AppName}
zh_CN.AppComment=托盘中的本地模型聊天，经你批准后处理你的文件
#endif

[Tasks]
Name: "startatlogin"; Description: "{cm:StartAtLogin}"; Flags: unchecked
Name: "desktopicon"; Description: "{cm:DesktopIcon}"; GroupDescription: "{cm:Shortcuts}"; Flags: unchecked

[Files]
Source: "..\..\dist\metona-tray\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "{cm:AppComment}"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; The same value name and command form as tray_app/desktop/autostart.py (WIN_VALUE).
Root: HKCU; Subkey: "Software\Microsoft\Windows\CurrentVersion\Run"; ValueType: string; \
    ValueName: "{#AppName}"; ValueData: """{app}\{#AppExe}"""; Tasks: startatlogin
; Removed on uninstall whoever wrote it (this installer or the app's own setting).
Root: HKCU; Subkey: "Software\Microsoft\Windows\CurrentVersion\Run"; ValueName: "{#AppName}"; \
    ValueType: none; Flags: uninsdeletevalue dontcreatekey

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchNow}"; Flags: nowait postinstall skipifsilent
