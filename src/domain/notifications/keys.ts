/**
 * The keys of notifications, made on first start and kept in the data folder
 * (`notification-keys.json`, readable by the service's user only): the VAPID key pair that
 * signs Web Push requests (browsers subscribe to the public key, so it must not change), and
 * the secret that signs the one-click unsubscribe links of emails. Processes that share a
 * data folder share the keys; two starting at once make one file (the second reads the first's).
 * @see docs/notifications.md
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';
import type { NoticeKind } from '../changes/notices.js';

export interface NotificationKeys {
  vapidPublicKey: string;
  vapidPrivateKey: string;
  unsubscribeSecret: string;
}

const FILE = 'notification-keys.json';
const loaded = new Map<string, NotificationKeys>();

/** The keys of the data folder `dataDir`, made there when it has none. */
export function notificationKeys(dataDir: string): NotificationKeys {
  const known = loaded.get(dataDir);
  if (known) return known;
  const file = path.join(dataDir, FILE);
  let keys: NotificationKeys;
  try {
    keys = JSON.parse(readFileSync(file, 'utf8')) as NotificationKeys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const vapid = webpush.generateVAPIDKeys();
    keys = { vapidPublicKey: vapid.publicKey, vapidPrivateKey: vapid.privateKey, unsubscribeSecret: randomBytes(32).toString('base64url') };
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    } catch (raced) {
      // Another process made the file first: its keys are the ones.
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
      keys = JSON.parse(readFileSync(file, 'utf8')) as NotificationKeys;
    }
  }
  loaded.set(dataDir, keys);
  return keys;
}

function mac(secret: string, text: string): Buffer {
  return createHmac('sha256', secret).update(text).digest();
}

/** The token of a one-click unsubscribe link: which person, which kind of mail, signed. */
export function unsubscribeToken(keys: NotificationKeys, userId: string, kind: NoticeKind): string {
  return `${userId}.${kind}.${mac(keys.unsubscribeSecret, `${userId}.${kind}`).toString('base64url')}`;
}

/** The person and kind an unsubscribe token names, or null when it is not one of ours. */
export function readUnsubscribeToken(keys: NotificationKeys, token: string): { userId: string; kind: NoticeKind } | null {
  const [userId, kind, signature] = token.split('.');
  if (!userId || (kind !== 'reminder' && kind !== 'question') || !signature) return null;
  const expected = mac(keys.unsubscribeSecret, `${userId}.${kind}`);
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected) ? { userId, kind } : null;
}
