// listkeeper's pages work without JavaScript; this file only makes them quicker to use.
// htmx (served beside it) swaps the small forms in place; what is here is what htmx has no
// attribute for: dropping images onto an item, and dragging a card to another column.

document.documentElement.classList.add('js');

/** The CSRF token of the page (every form carries the same one). */
function csrfToken() {
  const field = document.querySelector('input[name=csrf]');
  return field ? field.value : '';
}

/**
 * Attachments: files dropped on (or chosen in) `.dropzone` go to upload slots the page asks
 * for, straight to storage, and are then attached to the item; the page reloads to show them.
 */
function wireDropzone(zone) {
  const input = zone.querySelector('input[type=file]');
  const status = zone.querySelector('[role=status]');
  const say = (text) => {
    if (status) status.textContent = text;
  };
  async function upload(files) {
    const images = Array.from(files).filter((f) => f.type.startsWith('image/'));
    if (images.length === 0) return say('Only images (PNG, JPEG, WebP, HEIC) can be attached.');
    const paths = [];
    for (const [index, file] of images.entries()) {
      say(`Uploading ${index + 1} of ${images.length}…`);
      const body = new URLSearchParams({ csrf: csrfToken(), mimeType: file.type });
      const slot = await fetch(zone.dataset.slots, { method: 'POST', body, headers: { Accept: 'application/json' } });
      const answer = await slot.json();
      if (!slot.ok) return say(answer.error || 'No upload slot was given.');
      const put = await fetch(answer.uploadUrl, { method: 'PUT', body: file, headers: { 'Content-Type': file.type } });
      if (!put.ok) return say((await put.json().catch(() => ({}))).error || `The upload failed (${put.status}).`);
      paths.push(answer.bucketPath);
    }
    const attach = new URLSearchParams({ csrf: csrfToken() });
    for (const p of paths) attach.append('bucketPath', p);
    const done = await fetch(zone.dataset.attach, { method: 'POST', body: attach, headers: { Accept: 'application/json' } });
    if (!done.ok) return say((await done.json().catch(() => ({}))).error || 'The images could not be attached.');
    say('Attached.');
    window.location.reload();
  }
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    upload(e.dataTransfer.files).catch((err) => say(String(err)));
  });
  if (input)
    input.addEventListener('change', () => {
      upload(input.files).catch((err) => say(String(err)));
    });
  const form = zone.closest('form');
  if (form)
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (input?.files.length) upload(input.files).catch((err) => say(String(err)));
    });
}

/** The board: a card dragged to another column is moved with the card's own form. */
function wireBoard(board) {
  let dragged = null;
  for (const card of board.querySelectorAll('li[draggable=true]')) {
    card.addEventListener('dragstart', (e) => {
      dragged = card;
      e.dataTransfer.effectAllowed = 'move';
    });
  }
  for (const column of board.querySelectorAll('.column')) {
    column.addEventListener('dragover', (e) => {
      if (dragged) e.preventDefault();
    });
    column.addEventListener('drop', (e) => {
      e.preventDefault();
      if (!dragged) return;
      const select = dragged.querySelector('select');
      if (select && select.value !== column.dataset.value) {
        select.value = column.dataset.value;
        const form = select.closest('form');
        if (form) form.requestSubmit();
      }
      dragged = null;
    });
  }
}

for (const zone of document.querySelectorAll('.dropzone')) wireDropzone(zone);
for (const board of document.querySelectorAll('.board')) wireBoard(board);

// The service worker shows pushed notifications (Settings → Notifications turns them on) and
// makes the app installable; it caches nothing.
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => undefined);

/** A short name for this browser in Settings ("Firefox on Android"). */
function browserName() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : 'A browser';
  const system = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X/.test(ua)
        ? 'macOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return system ? `${browser} on ${system}` : browser;
}

/**
 * Settings → Notifications: subscribes this browser to the service's VAPID key (after the
 * person allows notifications) and hands the subscription to the page, which keeps it.
 */
function wirePush(box) {
  const button = box.querySelector('button');
  const status = box.querySelector('[role=status]');
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    status.textContent = 'This browser cannot take pushes (on an iPhone, add listkeeper to the Home Screen first).';
    return;
  }
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      if ((await Notification.requestPermission()) !== 'granted') {
        status.textContent = "Notifications are blocked for this site: allow them in the browser's site settings, then try again.";
        return;
      }
      await navigator.serviceWorker.register('/sw.js');
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: box.dataset.vapidKey });
      const { endpoint, keys } = subscription.toJSON();
      const body = new URLSearchParams({ csrf: csrfToken(), endpoint, p256dh: keys.p256dh, auth: keys.auth, browser: browserName() });
      const answer = await fetch(box.dataset.action, { method: 'POST', body, headers: { Accept: 'application/json' } });
      const result = await answer.json().catch(() => ({}));
      if (!answer.ok) {
        status.textContent = result.error || `Push could not be turned on (${answer.status}).`;
        return;
      }
      window.location.assign(result.next);
    } catch (err) {
      status.textContent = `Push could not be turned on: ${err.message}`;
    }
  });
}

for (const box of document.querySelectorAll('.push-setup')) wirePush(box);
