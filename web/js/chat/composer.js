// The message box: Enter sends, Shift+Enter adds a line (and Enter while an IME is composing
// Chinese text belongs to the IME). Send turns into Stop while the chat is answering.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { tattr } from '../lib/i18n.js';

const MAX_IMAGES = 8;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export class Composer {
  constructor(form, { onSend, onStop, onError }) {
    this.form = form;
    this.area = form.querySelector('#prompt');
    this.sendBtn = form.querySelector('#btn-send');
    this.stopBtn = form.querySelector('#btn-stop');
    this.attachBtn = form.querySelector('#btn-attach');
    this.fileInput = form.querySelector('#file-input');
    this.tray = form.querySelector('#attachments');
    this.images = [];
    this.running = false;
    this.onSend = onSend;
    this.onError = onError;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.send();
    });
    this.area.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.keyCode === 229)
        return;
      event.preventDefault();
      this.send();
    });
    this.area.addEventListener('input', () => this.autosize());
    this.stopBtn.addEventListener('click', () => onStop());
    this.attachBtn.addEventListener('click', () => this.fileInput.click());
    this.fileInput.addEventListener('change', () => this.addFiles([...this.fileInput.files]));
    this.area.addEventListener('paste', (event) => {
      const files = [...(event.clipboardData?.files || [])].filter((f) =>
        f.type.startsWith('image/'),
      );
      if (files.length && !this.attachBtn.disabled) this.addFiles(files);
    });
  }

  send() {
    const text = this.area.value.trim();
    if (!text || this.running) return;
    const images = this.images.map((i) => i.b64);
    // Emptied at once: what the user types while the send is on its way is theirs (emptied
    // when it arrived, the box lost it). A refused send gives the text back to an empty box.
    const raw = this.area.value;
    this.area.value = '';
    this.autosize();
    this.onSend(text, images).then((sent) => {
      if (!sent) {
        if (!this.area.value) this.setDraft(raw);
        return;
      }
      this.images = [];
      this.renderTray();
    });
  }

  autosize() {
    // CSSOM writes are allowed under the page's CSP (only style attributes in markup are not).
    this.area.style.height = 'auto';
    const max = Math.round(window.innerHeight * 0.35);
    this.area.style.height = `${Math.min(this.area.scrollHeight + 2, max)}px`;
  }

  setRunning(running) {
    this.running = running;
    this.sendBtn.hidden = running;
    this.stopBtn.hidden = !running;
  }

  /** Images only for models that can see them. */
  setVision(capable) {
    this.attachBtn.disabled = !capable;
    tattr(this.attachBtn, 'title', capable ? 'composer.attach' : 'composer.no_vision');
    if (!capable && this.images.length) {
      this.images = [];
      this.renderTray();
    }
  }

  async addFiles(files) {
    this.fileInput.value = '';
    for (const file of files) {
      if (this.images.length >= MAX_IMAGES) break;
      if (!/^image\/(png|jpeg|gif|webp)$/.test(file.type) || file.size > MAX_IMAGE_BYTES) {
        this.onError('composer.bad_image');
        continue;
      }
      const url = await new Promise((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.onerror = () => reject(reader.error);
        reader.readAsDataURL(file);
      });
      this.images.push({ url, b64: url.slice(url.indexOf(',') + 1), name: file.name });
    }
    this.renderTray();
  }

  renderTray() {
    this.tray.hidden = !this.images.length;
    this.tray.replaceChildren(
      ...this.images.map((img, index) =>
        h(
          'div',
          { class: 'attachment' },
          h('img', { src: img.url, alt: img.name, class: 'thumb' }),
          h(
            'button',
            {
              class: 'remove',
              type: 'button',
              i18nLabel: 'composer.remove_image',
              i18nTitle: 'composer.remove_image',
              onclick: () => {
                this.images.splice(index, 1);
                this.renderTray();
              },
            },
            icon('close'),
          ),
        ),
      ),
    );
  }

  focus() {
    this.area.focus();
  }

  setDraft(text) {
    this.area.value = text;
    this.autosize();
  }
}
