// Choosing the folder a chat works in: the native folder dialog where the desktop has one,
// else a small form under the folder line. Either way the keyboard goes home afterwards.
import { call } from '../lib/bridge.js';
import { $ } from '../lib/dom.js';
import { currentSession } from '../lib/store.js';

/** setWorkspace(path) -> Promise<boolean>; draftFolder() -> the unsent chat's folder. */
export function workspaceChooser({ setWorkspace, draftFolder, focusHome }) {
  const form = $('#workspace-form');
  const input = $('#workspace-input');
  const close = () => {
    form.hidden = true;
    focusHome();
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (await setWorkspace(input.value.trim())) close();
  });
  $('#workspace-cancel').addEventListener('click', close);
  $('#btn-workspace').addEventListener('click', async () => {
    const result = await call('pick_folder').catch(() => ({ supported: false }));
    if (result.supported) {
      if (result.path) await setWorkspace(result.path);
      focusHome(); // the native dialog closed, chosen or cancelled
      return;
    }
    input.value = currentSession()?.workspace || draftFolder() || '';
    form.hidden = false;
    input.focus();
  });
  return {
    get isOpen() {
      return !form.hidden;
    },
    close,
  };
}
