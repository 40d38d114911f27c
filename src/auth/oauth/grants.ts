/**
 * A person's connected apps: the OAuth grants they approved, read from and revoked in the
 * provider's storage. Revoking a grant deletes it with every code and refresh token issued
 * under it; its access tokens stop at once because verification checks the grant
 * (src/auth/oauth/verify.ts). A grant also keeps the return addresses (redirect URIs) the
 * person allowed it, so consent for one is never taken as consent for another.
 */
import { endSubscriptionsOf } from '../../domain/changes/subscriptions.js';
import type { Knex } from 'knex';
import type { Grant } from '../../core/context.js';
import { parseGrant } from '../../domain/accounts/grants.js';
import { clientLabel, isMetadataDocumentId } from './client-metadata.js';

export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string | null;
  /** Every return address the app registered. */
  redirectUris: string[];
  /** Those the person allowed it to return to. */
  approvedRedirectUris: string[];
  /** When the person approved it (seconds since the epoch, from the grant). */
  approvedAt: Date | null;
  /** What it may do; undefined: the whole person. */
  grant: Grant | undefined;
}

interface Row {
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_uris: string[] | null;
  approved_redirect_uris: string[] | null;
  iat: number | null;
  connection_grant: unknown;
}

/** The Grant field that holds the return addresses the person allowed (see keepApprovedRedirectUris). */
const APPROVED = 'approvedRedirectUris';
/** The Grant fields that hold what the connection may do (domain/accounts/grants.ts; absent: the whole person) and the scope request the person last answered. */
const CONNECTION_GRANT = 'connectionGrant';
const ANSWERED = 'answeredScope';

/**
 * Makes the provider's Grant model save the return addresses a person allowed with the grant,
 * and the connection's grant. oidc-provider stores only the fields a model names in its static
 * IN_PAYLOAD; naming more there is how its author says to keep data of one's own on a model.
 * Call it before the provider makes any Grant (it caches the list per model).
 */
export function keepApprovedRedirectUris(Grant: object): void {
  const fields = (Grant as { IN_PAYLOAD: string[] }).IN_PAYLOAD;
  const ours = [APPROVED, CONNECTION_GRANT, ANSWERED].filter((f) => !fields.includes(f));
  if (ours.length > 0) Object.defineProperty(Grant, 'IN_PAYLOAD', { value: [...fields, ...ours], configurable: true });
}

/** What a Grant record allows its app (undefined: the whole person). */
export function connectionGrantOf(grant: object | undefined): Grant | undefined {
  return parseGrant((grant as Record<string, unknown> | undefined)?.[CONNECTION_GRANT]);
}

/** The scope request the person last answered on the consent page for this grant. */
export function answeredScope(grant: object | undefined): string | undefined {
  const value = (grant as Record<string, unknown> | undefined)?.[ANSWERED];
  return typeof value === 'string' ? value : undefined;
}

/** Sets what a Grant record allows (saved with the grant), and the request the person answered. */
export function setConnectionGrant(grant: object, connectionGrant: Grant | undefined, answered: string): void {
  const g = grant as Record<string, unknown>;
  g[CONNECTION_GRANT] = connectionGrant ?? null;
  g[ANSWERED] = answered;
}

/** Changes what one of the person's apps may do, from Settings; its next request holds to it. False when the grant is not theirs. */
export async function changeConnectedApp(db: Knex, userId: string, grantId: string, grant: Grant | undefined): Promise<boolean> {
  const changed = await db('oauth_payloads')
    .where({ model: 'Grant', id: grantId, account_id: userId })
    .update({ payload: db.raw(`jsonb_set(payload, '{${CONNECTION_GRANT}}', ?::jsonb)`, [JSON.stringify(grant ?? null)]) });
  return changed > 0;
}

/** The return addresses allowed for a grant. */
export function approvedRedirectUris(grant: object | undefined): string[] {
  const value = (grant as Record<string, unknown> | undefined)?.[APPROVED];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Adds `redirectUri` to the addresses a grant allows (saved with the grant). */
export function approveRedirectUri(grant: object, redirectUri: string): void {
  (grant as Record<string, unknown>)[APPROVED] = [...new Set([...approvedRedirectUris(grant), redirectUri])];
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
      db.raw("g.payload->'approvedRedirectUris' as approved_redirect_uris"),
      db.raw("(g.payload->>'iat')::bigint as iat"),
      db.raw(`g.payload->'${CONNECTION_GRANT}' as connection_grant`),
    )) as Row[];
  return rows.map((r) => ({
    grantId: r.id,
    clientId: r.client_id,
    // A metadata document's app has no stored registration: it is known by the host that serves it.
    clientName: r.client_name ?? (isMetadataDocumentId(r.client_id) ? clientLabel(r.client_id, null) : null),
    redirectUris: Array.isArray(r.redirect_uris) ? r.redirect_uris : [],
    approvedRedirectUris: Array.isArray(r.approved_redirect_uris) ? r.approved_redirect_uris : [],
    approvedAt: r.iat ? new Date(Number(r.iat) * 1000) : null,
    grant: parseGrant(r.connection_grant),
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
