// Entry point: builds the components, loads the state from Core, routes events and keys.
import { call, onEvents, requestResync, whenReady } from './lib/bridge.js';
import { $ } from './lib/dom.js';
import { fillIcons } from './lib/icons.js';
import { initTooltips } from './lib/tooltip.js';
import { checkLink, guardLinks } from './markdown/linkcheck.js';
import {
  setLanguage,
  setLanguages,
  setSystemLanguage,
  currentLanguage,
  resolveLanguage,
  t,
  tx,
} from './lib/i18n.js';
import { setTheme } from './lib/theme.js';
import { store } from './lib/store.js';
import { ChatLog } from './chat/chatlog.js';
import { Composer } from './chat/composer.js';
import { Sidebar } from './chat/sidebar.js';
import { ModelPicker } from './chat/modelpicker.js';
import { SettingsPanel } from './settings/settings.js';
import { Onboarding } from './chat/onboarding.js';
import { ApprovalPanel } from './chat/approval.js';
import { initToasts, toast } from './lib/toast.js';
import { createEventPump } from './chat/events.js';
import { createActions } from './chat/actions.js';
import { HistoryPanel } from './chat/history.js';
import { settingsLink } from './settings/settings_link.js';
import { ModeSwitch } from './chat/mode_switch.js';
import { historyWarningArg } from './chat/historywarn.js';
import { createHomeFocus } from './lib/homefocus.js';
import { workspaceChooser } from './chat/workspacepick.js';
import { visible } from './lib/format.js';

const ui = {};
let actions;

function build() {
  fillIcons();
  initTooltips();
  initToasts($('#toasts'));
  ui.title = $('#session-title');
  ui.workspace = $('#workspace-path');
  ui.chatlog = new ChatLog($('#log'), $('#messages'), $('#log-empty'));
  ui.chatlog.undoTurn = (turnId, force) => call('undo_turn', { turn_id: turnId, force_ids: force });
  ui.chatlog.onUndoFailed = (err) => actions.fail(err);
  ui.composer = new Composer($('#composer'), {
    onSend: (text, images) => actions.send(text, images),
    onStop: () => actions.stop(),
    onError: (key) => toast({ key, level: 'error' }),
  });
  ui.sidebar = new Sidebar($('#sidebar'), {
    scrim: $('#scrim'),
    toggle: $('#btn-sidebar'),
    onSelect: (id) => {
      actions.open(id);
      if (ui.sidebar.isOverlay) ui.focusHome();
    }, // it closed
    onRename: (id, title) => actions.rename(id, title),
    onDelete: (id) => actions.remove(id),
    onExport: (id, format) => actions.exportChat(id, format),
    onSearch: (query) => actions.search(query),
  });
  ui.searching = () => Boolean($('#session-search').value.trim());
  ui.picker = new ModelPicker($('#btn-model'), $('#model-menu'), {
    onPick: (name) => {
      actions.setModel(name);
      ui.focusHome();
    },
    onRefresh: () => refreshModels(),
    // the tools switch: Core answers with the models as they are now
    onToolMode: (name, mode) =>
      call('set_model_tool_mode', { name, mode }).then(
        (result) => modelsUpdated(result.models, result.error),
        (err) => actions.fail(err),
      ),
    onCheck: (name) => call('check_model_tools', { name }),
  });
  ui.settingsLink = settingsLink({
    current: () => store.settings,
    apply: settingsUpdated,
    fail: (err) => actions.fail(err),
  });
  ui.settings = new SettingsPanel($('#settings'), {
    onPatch: (patch) => ui.settingsLink.save(patch),
    onApiKey: (key) => ui.settingsLink.saveApiKey(key),
    onPickFolder: pickFolder,
    onUndoLast: () => actions.undo(null),
    onClose: () => closeSettings(),
    onPermissions: () => call('permissions'),
    onRevokeGrant: (sessionId, tool) => call('revoke_grant', { session_id: sessionId, tool }),
  });
  ui.mode = new ModeSwitch($('#session-bar'), { save: (patch) => ui.settingsLink.save(patch) });
  ui.onboarding = new Onboarding($('#onboarding'), {
    onRetry: () => checkServer(),
    onPull: (name) => call('pull_model', { name }),
    onOpenLink: openLink,
    onSettings: () => openSettings(),
  });
  ui.approval = new ApprovalPanel($('#approval'), {
    onDecide: (id, approve, remember, rule) => actions.decide(id, approve, remember, rule),
    sessionTitle: (id) => store.sessions.find((s) => s.id === id)?.title || t('chat.untitled'),
    onClosed: () => ui.composer.focus(),
  });
  ui.history = new HistoryPanel($('#history'), {
    load: () => call('changes'),
    undo: (id) => call('undo_change', { change_id: String(id) }),
    undoTurn: (turnId, force) => call('undo_turn', { turn_id: turnId, force_ids: force }),
    onClose: () => closeHistory(),
    onError: (err) => actions.fail(err),
  });
  ui.approvalsChanged = approvalsChanged;
  ui.focusHome = createHomeFocus({
    panels: () => [$('#settings'), $('#history')],
    approval: ui.approval,
    composer: ui.composer,
  });
  actions = createActions(ui);
  wire();
}

function wire() {
  $('#btn-new').addEventListener('click', () => {
    closeSettings();
    actions.newChat();
  });
  $('#btn-hide').addEventListener('click', hideWindow);
  $('#sidebar-new').addEventListener('click', () => actions.newChat());
  $('#btn-settings').addEventListener('click', () =>
    ui.settings.isOpen ? closeSettings() : openSettings(),
  );
  $('#btn-history').addEventListener('click', () =>
    ui.history.isOpen ? closeHistory() : openHistory(),
  );
  ui.folder = workspaceChooser({
    setWorkspace: (path) => actions.setWorkspace(path),
    draftFolder: () => actions.draft.workspace,
    focusHome: ui.focusHome,
  });
  const app = $('#app');
  // A link in a message: the user sees where it really goes, then it opens outside the popup.
  guardLinks($('#messages'));
  app.addEventListener('metona:open-link', (e) =>
    checkLink(e.detail.url, { host: app, onOpen: openLink, onClosed: ui.focusHome }),
  );
  // Retry after a failure the server caused: look at the server (and its models) again first,
  // so the chat's model state is fresh for the new turn.
  app.addEventListener('metona:retry', async () => {
    if (store.server?.reachable === false || !store.models.length) await checkServer();
    actions.retry();
  });
  app.addEventListener('metona:load-older', (e) => actions.loadOlder(e.detail));
  app.addEventListener('metona:export', (e) =>
    actions.exportChat(e.detail.sessionId, e.detail.format),
  );
  app.addEventListener('metona:edit-last', (e) => actions.editLast(e.detail.text));
  app.addEventListener('metona:undo', (e) => actions.undo(e.detail.callId));
  app.addEventListener('metona:review', () => ui.approval.focus());
  document.addEventListener('keydown', onKey);
  document.addEventListener('metona:language', () => {
    ui.sidebar.rerender();
    actions.refreshChrome();
  });
}

function onKey(event) {
  const mod = event.ctrlKey || event.metaKey;
  if (mod && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'n') {
    event.preventDefault();
    closeSettings();
    actions.newChat();
  } else if (mod && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') {
    event.preventDefault();
    // The search box must not open under a panel: every panel over the chat closes first.
    closeSettings();
    closeHistory();
    ui.picker.close();
    ui.sidebar.focusSearch();
  } else if (event.key === 'Escape' && !event.defaultPrevented) {
    event.preventDefault();
    if (ui.picker.isOpen) {
      ui.picker.close();
      ui.focusHome();
    } else if (ui.settings.isOpen) closeSettings();
    else if (ui.history.isOpen) closeHistory();
    else if (ui.folder.isOpen) ui.folder.close();
    else if (ui.sidebar.isOpen && ui.sidebar.isOverlay) {
      ui.sidebar.close();
      ui.focusHome();
    } else hideWindow();
  }
}

function openHistory() {
  closeSettings();
  $('#btn-history').setAttribute('aria-expanded', 'true');
  ui.history.open();
}

function closeHistory() {
  if (!ui.history.isOpen) return;
  ui.history.close();
  $('#btn-history').setAttribute('aria-expanded', 'false');
  ui.focusHome();
}

/** The popup has no title bar: the header's Hide button and Esc put it away. */
function hideWindow() {
  ui.picker.close();
  call('hide').catch(() => {});
}

// Settings (from the header or the tray's menu) wait for the page's settings and language:
// opened earlier, the panel would have no values and show its keys instead of its words.
let markBooted;
const booted = new Promise((resolve) => {
  markBooted = resolve;
});

async function openSettings() {
  await booted;
  if (ui.settings.isOpen) return;
  closeHistory();
  ui.picker.close();
  ui.settings.open(store.settings, store.models);
  if (!ui.builtins) {
    ui.builtins = call('built_in_rules')
      .then((rules) => ui.settings.setBuiltins(rules))
      .catch(() => {
        ui.builtins = null;
      });
  }
  $('#btn-settings').setAttribute('aria-expanded', 'true');
  call('hotkey_status')
    .then((status) => {
      if (status?.taken) ui.settings.showNote('hotkey', 'set.hotkey_taken');
      else if (status?.session === 'wayland' && !status?.supported)
        ui.settings.showNote('hotkey', 'set.hotkey_wayland');
    })
    .catch(() => {}); // an older bridge without the command: no note
  call('keyring_status') // looked at without a prompt: storing a key is what may ask
    .then((keyring) => {
      if (keyring?.usable === false) {
        ui.settings.showNote(
          'api_key',
          keyring.problem === 'locked' ? 'set.api_key_keyring_locked' : 'set.api_key_no_keyring',
        );
      } else if (keyring?.state === 'locked')
        ui.settings.showNote('api_key', 'set.api_key_keyring_asks');
      else if (keyring?.state === 'missing')
        ui.settings.showNote('api_key', 'set.api_key_keyring_new');
    })
    .catch(() => {});
}

function closeSettings() {
  if (!ui.settings.isOpen) return;
  ui.settings.close();
  $('#btn-settings').setAttribute('aria-expanded', 'false');
  ui.focusHome();
}

async function pickFolder() {
  try {
    const result = await call('pick_folder');
    return result.supported ? result.path : null;
  } catch (err) {
    actions.fail(err);
    return null;
  } finally {
    ui.focusHome(); // back in Settings (its modal panel keeps the focus)
  }
}

function openLink(url) {
  call('open_link', { url }).catch((err) => actions.fail(err));
}

function settingsUpdated(settings) {
  const old = store.settings || {};
  store.settings = settings;
  ui.mode.set(settings);
  if (
    old.language !== settings.language &&
    resolveLanguage(settings.language) !== currentLanguage()
  ) {
    setLanguage(settings.language);
  }
  if (old.theme !== settings.theme) setTheme(settings.theme);
  if (ui.settings.isOpen) ui.settings.update(settings);
  if (old.endpoint && old.endpoint !== settings.endpoint) checkServer();
  else if (old.vision_models && String(old.vision_models) !== String(settings.vision_models))
    refreshModels(); // badges
  // The folders decide where a chat without its own folder works: ask Core again.
  const folders = (s) => JSON.stringify([s.allowed_dirs, s.blocked_dirs]);
  if (folders(old) !== folders(settings)) {
    syncStatus();
    if (store.currentId) actions.open(store.currentId);
  }
  actions.refreshChrome();
}

async function refreshModels() {
  try {
    const result = await call('list_models');
    modelsUpdated(result.models, result.error);
  } catch (err) {
    actions.fail(err);
  }
}

function modelsUpdated(models, error) {
  store.models = models || [];
  store.modelsError = error || null;
  ui.picker.render(store.models, store.modelsError);
  ui.settings.setModels(store.models);
  actions.refreshChrome();
}

/** Decide whether the chat can be used, or what the user must do first. */
async function checkServer() {
  try {
    store.server = await call('server_status');
  } catch (err) {
    store.server = { reachable: false, error: err.message, code: err.code };
  }
  if (!store.server.reachable) {
    ui.onboarding.show('unreachable', {
      endpoint: store.settings?.endpoint,
      error: store.server.error,
      code: store.server.code,
    });
  } else {
    await refreshModels();
    if (!store.models.length) ui.onboarding.show('no_models');
    else ui.onboarding.hide();
  }
  $('#log-empty').classList.toggle('behind', ui.onboarding.visible);
}

function pullProgress(ev) {
  ui.onboarding.progressEvent(ev);
  if (ev.done && !ev.error) checkServer();
}

function approvalsChanged() {
  ui.approval.set(store.approvals, store.currentId);
  for (const ev of store.approvals) ui.chatlog.refreshCard(ev.call_id);
}

let statusTimer = null;
function stateChanged(ev) {
  const badge = $('#state-badge');
  badge.hidden = ev.state === 'idle';
  badge.className = `state-badge ${ev.state}`;
  tx(badge, `state.${ev.state}`, { n: ev.pending });
  // The event says how many turns run, not which: ask Core (cheap), at most a few times a second.
  clearTimeout(statusTimer);
  statusTimer = setTimeout(syncStatus, 120);
}

async function syncStatus() {
  try {
    const status = await call('status');
    store.running = new Set(status.running);
    if (status.workspace && status.workspace !== store.workspace) {
      store.workspace = status.workspace;
      actions.refreshChrome();
    }
    actions.runningChanged();
  } catch {
    /* the next event will try again */
  }
}

// The tray menu and notification clicks ask the page to show something
// (desktop/popup/popup.py posts these into the same batches as Core events).
function uiAction(ev) {
  if (ev.action === 'open_settings') {
    openSettings();
  } else if (ev.action === 'confirm_auto') {
    ui.mode.confirmAuto(); // the tray's "Auto…": the risk is named here, a click confirms
  } else if ((ev.action === 'open_session' || ev.action === 'show_pending') && ev.session_id) {
    if (ui.settings.isOpen) closeSettings();
    actions.open(ev.session_id); // the approval panel of that chat shows the pending call
  }
}

let reloadTimer = null;
function reloadSoon() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(() => store.currentId && actions.open(store.currentId), 300);
}

async function boot() {
  build();
  const pump = createEventPump({
    chatlog: ui.chatlog,
    sessionUpdated: (s, deleted) => actions.sessionUpdated(s, deleted),
    modelsUpdated,
    settingsUpdated: (settings) => ui.settingsLink.heard(settings),
    pullProgress,
    stateChanged,
    approvalsChanged,
    runningChanged: () => actions.runningChanged(),
    undone: (ev) => {
      // The open change history shows each undo in its rows, and a whole turn's undo has its
      // report: a toast per file would only cover them. A hidden character in the name is
      // shown, not obeyed.
      if (!ui.history.isOpen && !ev.turn_id)
        toast({ key: 'toast.undone', args: { path: visible(ev.path || '') } });
      ui.history.refresh();
    },
    reloadSoon,
    resync: requestResync,
    uiAction,
    mcpStatus: (servers) => ui.settings.mcpStatus(servers),
    serverCheck: () => checkServer(),
  });
  await whenReady();
  onEvents(pump);
  const [settings, sessions, status, pending] = await Promise.all([
    call('get_settings'),
    call('list_sessions'),
    call('status'),
    call('pending_approvals'),
  ]);
  store.settings = settings;
  ui.mode.set(settings);
  store.sessions = sessions;
  store.running = new Set(status.running);
  store.workspace = status.workspace || '';
  store.approvals = pending;
  setTheme(settings.theme);
  setLanguages(status.languages);
  setSystemLanguage(status.system_language);
  await setLanguage(settings.language);
  // History off or read-only this run (a damaged, locked or newer database): said once, in a
  // toast that stays until it is closed or read for a while.
  const warning = historyWarningArg(status);
  if (warning)
    toast({
      ...(typeof warning === 'string' ? { text: warning } : warning),
      level: 'warning',
      ms: 30000,
    });
  actions.newChat();
  if (sessions.length) await actions.open(sessions[0].id);
  approvalsChanged();
  if (ui.sidebar.isOverlay === false) ui.sidebar.open();
  $('#app').removeAttribute('aria-busy');
  $('#app').dataset.ready = 'true';
  markBooted();
  await checkServer();
  $('#app').dataset.checked = 'true';
}

boot().catch((err) => {
  console.error(err);
  toast({ text: String(err.message || err), level: 'error', ms: 15000 });
});
