/**
 * A person's connected apps: the OAuth grants they approved, read from and revoked in the
 * provider's storage. Revoking a grant deletes it with every code and refresh token issued
 * under it; its access tokens stop at once because verification checks the grant
 * (src/auth/oauth/verify.ts).
 */
import { endSubscriptionsOf } from '../../domain/changes/subscriptions.js';
import type { Knex } from 'knex';
import { clientLabel, isMetadataDocumentId } from './client-metadata.js';

export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string | null;
  redirectUris: string[];
  /** When the person approved it (seconds since the epoch, from the grant). */
  approvedAt: Date | null;
}

interface Row {
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_uris: string[] | null;
  iat: number | null;
}

/** The person's grants, newest first. */
export async function listConnectedApps(db: Knex, userId: string): Promise<ConnectedApp[]> {
  const rows = (await db('oauth_payloads as g')
    .leftJoin('oauth_payloads as c', (j) => j.on('c.model', db.raw('?', ['Client'])).andOn('c.id', db.raw("g.payload->>'clientId'")))
    .where({ 'g.model': 'Grant', 'g.account_id': userId })
    .andWhere((q) => q.whereNull('g.expires_at').orWhere('g.expires_at', '>', db.fn.now()))
    .orderBy('g.created_at', 'desc')
    .select(
      'g.id',
      db.raw("g.payload->>'clientId' as client_id"),
      db.raw("c.payload->>'client_name' as client_name"),
      db.raw("c.payload->'redirect_uris' as redirect_uris"),
      db.raw("(g.payload->>'iat')::bigint as iat"),
    )) as Row[];
  return rows.map((r) => ({
    grantId: r.id,
    clientId: r.client_id,
    // A metadata document's app has no stored registration: it is known by the host that serves it.
    clientName: r.client_name ?? (isMetadataDocumentId(r.client_id) ? clientLabel(r.client_id, null) : null),
    redirectUris: Array.isArray(r.redirect_uris) ? r.redirect_uris : [],
    approvedAt: r.iat ? new Date(Number(r.iat) * 1000) : null,
  }));
}

/** Revokes one of the person's grants; false when it is not theirs or already gone. */
export async function revokeConnectedApp(db: Knex, userId: string, grantId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const deleted = await trx('oauth_payloads').where({ model: 'Grant', id: grantId, account_id: userId }).delete();
    if (deleted === 0) return false;
    await trx('oauth_payloads').where({ grant_id: grantId }).delete();
    await endSubscriptionsOf(trx, userId, `grant:${grantId}`);
    return true;
  });
}

/**
 * The id of the person's newest live grant to a client, or null: what they already allowed
 * that app, whichever browser they allowed it in, so a second authorization asks for consent
 * only for what that grant lacks.
 */
export async function grantIdOf(db: Knex, userId: string, clientId: string): Promise<string | null> {
  const row = (await db('oauth_payloads')
    .where({ model: 'Grant', account_id: userId })
    .andWhereRaw("payload->>'clientId' = ?", [clientId])
    .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
    .orderBy('created_at', 'desc')
    .first('id')) as { id: string } | undefined;
  return row?.id ?? null;
}
