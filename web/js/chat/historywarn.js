// Why the chat history is off or read-only this run (Core's status: ``history_warning_info``,
// tray_app/history_warnings.py), as an i18n argument said in the language of the moment; a
// warning without a code (an older Core) keeps its English sentence.
import { hasText } from '../lib/i18n.js';
import { osReasonArg, shownParams } from './results.js';
import { visibleText } from '../lib/format.js';

/** A store problem's params as i18n arguments: shown safely, an OS error's detail in words. */
export function problemArgs(params) {
  const args = shownParams(params);
  if (typeof params?.detail === 'string') args.detail = osReasonArg(params);
  return args;
}

const coded = (info) => problemArgs(info.params);

/** ``{ key, args }`` for the warning in ``status``, its English sentence, or null for none. */
export function historyWarningArg(status) {
  const info = status?.history_warning_info;
  const key = info && typeof info.code === 'string' ? `history_warning.${info.code}` : '';
  if (key && hasText(key)) {
    const args = coded(info);
    const why = info.why && `store_problem.${info.why.code}`;
    if (why && hasText(why)) args.why = { key: why, args: coded(info.why) };
    else if (!why) args.why = osReasonArg(info.params || {});
    return { key, args };
  }
  return status?.history_warning ? visibleText(status.history_warning) : null;
}
