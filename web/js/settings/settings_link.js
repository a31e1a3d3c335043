// How the page saves settings through Core and hears of changes made elsewhere (the tray, another
// window). Settings events arrive in Core's order, but a call's reply travels apart from them: a
// reply that lands after a newer event must not undo it, so the newest known settings win.
import { call } from '../lib/bridge.js';
import { t } from '../lib/i18n.js';

/**
 * ``current()`` gives the settings the page holds; ``apply(settings)`` shows new ones;
 * ``fail(err)`` reports an error that is not a refused field.
 */
export function settingsLink({ current, apply, fail }) {
  let events = 0;

  /** A settings_updated event from Core. */
  function heard(settings) {
    events += 1;
    apply(settings);
  }

  /** Save a partial change: {settings, rejected, codes} (rejected: field -> reason; codes:
   * field -> {code, params} where Core coded the reason), or null. */
  async function save(patch) {
    const seen = events;
    const newest = (replied) => (events === seen ? replied : current());
    try {
      const result = await call('update_settings', { patch });
      const settings = newest(result.settings);
      apply(settings);
      return { settings, rejected: null, codes: {} };
    } catch (err) {
      if (err.code === 'invalid_settings' && err.details) {
        return {
          settings: newest(err.details.settings),
          rejected: err.details.errors || {},
          codes: err.details.codes || {},
        };
      }
      fail(err);
      return null;
    }
  }

  /** Store the API key in the keyring: null when saved, else what to show under the field
   * (also when the keyring did not take it: its prompt dismissed, so only this session has it). */
  async function saveApiKey(key) {
    try {
      const saved = await call('set_api_key', { key });
      if (key && saved?.stored_in_keyring === false) {
        return t(
          saved.problem === 'locked' ? 'set.api_key_keyring_locked' : 'set.api_key_no_keyring',
        );
      }
      return null;
    } catch (err) {
      return err.code === 'unsupported' ? t('set.api_key_unavailable') : err.message;
    }
  }

  return { heard, save, saveApiKey };
}
