// Light, dark, or whatever the system says (and follow it when it changes).
const media = window.matchMedia('(prefers-color-scheme: dark)');
let setting = 'system';

function apply() {
  const dark = setting === 'dark' || (setting === 'system' && media.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

media.addEventListener('change', apply);

export function setTheme(value) {
  setting = ['light', 'dark'].includes(value) ? value : 'system';
  apply();
}
