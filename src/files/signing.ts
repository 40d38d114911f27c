/**
 * Signed, expiring file URLs: an HMAC-SHA256 over the method, the bucket path and the expiry,
 * with a secret the service keeps in its database (made on first use, shared by every
 * process on that database).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';

const secrets = new WeakMap<Knex, Promise<Buffer>>();

/** The files signing secret of this database. */
export function filesSecret(db: Knex): Promise<Buffer> {
  let secret = secrets.get(db);
  if (!secret) {
    secret = (async () => {
      await db('service_secrets')
        .insert({ name: 'files', secret: randomBytes(32) })
        .onConflict('name')
        .ignore();
      const row = (await db('service_secrets').where({ name: 'files' }).first('secret')) as { secret: Buffer };
      return row.secret;
    })();
    secret.catch(() => secrets.delete(db));
    secrets.set(db, secret);
  }
  return secret;
}

function signature(secret: Buffer, method: 'GET' | 'PUT', bucketPath: string, expires: number): string {
  return createHmac('sha256', secret).update(`${method}\n${bucketPath}\n${expires}`).digest('base64url');
}

/** `<baseUrl>/files/<bucketPath>?expires=<unix seconds>&sig=<signature>`. */
export async function signedFileUrl(db: Knex, baseUrl: string, method: 'GET' | 'PUT', bucketPath: string, expiresAt: Date): Promise<string> {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const sig = signature(await filesSecret(db), method, bucketPath, expires);
  return `${baseUrl}/files/${bucketPath}?expires=${expires}&sig=${sig}`;
}

/** Why a signed URL is refused, or null when it holds at `now`. */
export async function checkSignature(
  db: Knex,
  method: 'GET' | 'PUT',
  bucketPath: string,
  expiresParam: unknown,
  sigParam: unknown,
  now: Date,
): Promise<string | null> {
  if (typeof expiresParam !== 'string' || typeof sigParam !== 'string' || !/^\d{1,12}$/.test(expiresParam))
    return 'This URL is not signed; ask the API for a fresh one.';
  const expected = Buffer.from(signature(await filesSecret(db), method, bucketPath, Number(expiresParam)));
  const given = Buffer.from(sigParam);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'The signature of this URL does not match; ask the API for a fresh one.';
  if (Number(expiresParam) * 1000 < now.getTime())
    return `This URL expired at ${new Date(Number(expiresParam) * 1000).toISOString()}; ask the API for a fresh one.`;
  return null;
}
