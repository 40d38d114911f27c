/**
 * What the backup tests put into a service before the backup and look for after the restore:
 * two notes, one with a Markdown body and an uploaded image.
 */
import { expect } from '@jest/globals';
import { PNG } from './images.js';

const BODY = '# Boiler\n\n- reset: hold 5 s';

export interface Sample {
  ids: string[];
  /** The items as the service read them before the backup. */
  before: unknown[];
}

function caller(key: string) {
  return async (base: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> => {
    const answer = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await answer.json()) as Record<string, unknown>;
  };
}

/** The fields a restore must bring back exactly. */
function kept(page: Record<string, unknown>): unknown[] {
  return (page.items as Record<string, unknown>[]).map(({ id, title, values, createdAt, updatedAt }) => ({ id, title, values, createdAt, updatedAt }));
}

/** Uploads an image and writes the notes through the service at `base`. */
export async function writeSample(base: string, key: string): Promise<Sample> {
  const call = caller(key);
  const slot = ((await call(base, 'POST', '/uploads', { mimeType: 'image/png', count: 1 })).uploads as { uploadUrl: string; bucketPath: string }[])[0]!;
  expect((await fetch(slot.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(PNG) })).status).toBe(200);
  const made = await call(base, 'POST', '/items', {
    listId: 'notes',
    items: [
      { title: 'Boiler manual', body: BODY, imageUrls: [slot.bucketPath] },
      { title: 'Wi-Fi password', body: 'on the router' },
    ],
  });
  const ids = (made.items as { id: string }[]).map((item) => item.id);
  return { ids, before: kept(await call(base, 'GET', `/items?listId=notes&ids=${ids.join(',')}`)) };
}

/** Reads the notes back through the restored service at `base`: the same items, the body, the image's bytes. */
export async function expectSampleRestored(base: string, key: string, sample: Sample): Promise<void> {
  const call = caller(key);
  expect(kept(await call(base, 'GET', `/items?listId=notes&ids=${sample.ids.join(',')}`))).toEqual(sample.before);
  const manual = await call(base, 'GET', `/items/${sample.ids[0]}?includeImageUrls=true`);
  expect(manual.body).toBe(BODY);
  const [attachment] = manual.attachments as { url: string }[];
  expect(Buffer.from(await (await fetch(attachment!.url)).arrayBuffer())).toEqual(PNG);
}
