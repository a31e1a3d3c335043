// ESLint for the page's own JavaScript (web/js: vanilla ES modules, no build step); `make check`
// runs it through scripts/lint-js.sh on web/js and this file. web/vendor/ is third-party: not
// ours to lint, so it is ignored here too (for editors that lint whatever file is open).
import js from '@eslint/js';
import globals from 'globals';

const WORKER = 'web/js/hlworker.js';

const page = {
  languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
  linterOptions: { reportUnusedDisableDirectives: 'error' },
  rules: {
    ...js.configs.recommended.rules,
    'no-unused-vars': ['error', { args: 'after-used', ignoreRestSiblings: true }],
    eqeqeq: ['error', 'always', { null: 'ignore' }],
    'no-var': 'error',
    'prefer-const': 'error',
  },
};

export default [
  { ignores: ['web/vendor/**'] },
  {
    ...page,
    files: ['web/js/**/*.js'],
    ignores: [WORKER],
    languageOptions: { ...page.languageOptions, globals: globals.browser },
  },
  {
    // A module worker (hloffthread.js starts it with `type: 'module'`): worker globals, no DOM.
    ...page,
    files: [WORKER],
    languageOptions: { ...page.languageOptions, globals: globals.worker },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
    rules: js.configs.recommended.rules,
  },
];
