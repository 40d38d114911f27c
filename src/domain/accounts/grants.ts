/**
 * Grants: what a connection (an OAuth app, the API key) may do when it holds less than the
 * whole person. A grant is written as scopes (`lists:read`, `lists:write`, `lists:delete`,
 * `list:<id>`, `lists:later`), kept as JSON with its connection, and read with the token on
 * every request, so a change in Settings applies to the connection's next call.
 * @see docs/auth.md "Grants"
 */
import type { Knex } from 'knex';
import type { Grant, Principal } from '../../core/context.js';
import type { GrantLevel } from '../../core/operation-spec.js';
import { isUuid } from '../ids.js';

/** The scopes of a grant's level, widest last; the level's scope implies the ones before it. */
export const LEVEL_SCOPES: Record<GrantLevel, string> = { read: 'lists:read', write: 'lists:write', delete: 'lists:delete' };
export const LATER_SCOPE = 'lists:later';
const LIST_SCOPE = /^list:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const ORDER: GrantLevel[] = ['read', 'write', 'delete'];

/** The scopes a client may ask for beside OpenID's: the grant's own (list:<id> is matched by shape). */
export const GRANT_SCOPES = [...Object.values(LEVEL_SCOPES), LATER_SCOPE];

/** True when `scope` is one of the grant's scopes (a level, `lists:later` or `list:<id>`). */
export function isGrantScope(scope: string): boolean {
  return GRANT_SCOPES.includes(scope) || LIST_SCOPE.test(scope);
}

/** Whether a grant (absent: the whole person) allows an operation needing `level`. */
export function allows(grant: Grant | undefined, level: GrantLevel): boolean {
  return !grant || ORDER.indexOf(grant.level) >= ORDER.indexOf(level);
}

/**
 * The grant a space-separated scope asks for, or undefined when it names none of the grant's
 * scopes (no scope, or only `openid email offline_access`): the whole person, as before.
 */
export function grantFromScopes(scope: string | undefined, now: Date = new Date()): Grant | undefined {
  const words = (scope ?? '').split(/\s+/).filter(isGrantScope);
  if (words.length === 0) return undefined;
  const levels = ORDER.filter((level) => words.includes(LEVEL_SCOPES[level]));
  const lists = [...new Set(words.flatMap((w) => LIST_SCOPE.exec(w)?.[1]?.toLowerCase() ?? []))];
  const level = levels.at(-1) ?? 'delete';
  if (level === 'delete' && lists.length === 0) return undefined;
  return { level, lists: lists.length > 0 ? lists : null, later: words.includes(LATER_SCOPE), since: now.toISOString() };
}

/** The scopes that ask for `grant` (the whole person: `lists:delete`). */
export function scopesOf(grant: Grant | undefined): string {
  if (!grant) return LEVEL_SCOPES.delete;
  const lists = grant.lists ? [...grant.lists.map((id) => `list:${id}`), ...(grant.later ? [LATER_SCOPE] : [])] : [];
  return [LEVEL_SCOPES[grant.level], ...lists].join(' ');
}

/** A grant read back from storage (JSON), or undefined for the whole person or anything malformed. */
export function parseGrant(value: unknown): Grant | undefined {
  const raw = typeof value === 'string' ? safeJson(value) : value;
  if (!raw || typeof raw !== 'object') return undefined;
  const g = raw as Record<string, unknown>;
  if (!ORDER.includes(g.level as GrantLevel)) return undefined;
  const lists = Array.isArray(g.lists) ? g.lists.filter((id): id is string => typeof id === 'string' && isUuid(id)) : null;
  if (g.level === 'delete' && !lists) return undefined;
  return { level: g.level as GrantLevel, lists, later: g.later === true, since: typeof g.since === 'string' ? g.since : new Date(0).toISOString() };
}

/** The principal with the grant stored for its connection (none stored: the whole person). */
export function withGrant(principal: Principal, stored: unknown): Principal {
  const grant = parseGrant(stored);
  return grant ? { ...principal, grant } : principal;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A grant narrowed by the person: the lower level of the two, and lists only where they chose them. */
export function narrowGrant(
  requested: Grant | undefined,
  chosen: { level: GrantLevel; lists: string[] | null; later: boolean },
  now = new Date(),
): Grant | undefined {
  const level = ORDER[Math.min(ORDER.indexOf(requested?.level ?? 'delete'), ORDER.indexOf(chosen.level))]!;
  const lists = chosen.lists ?? requested?.lists ?? null;
  if (level === 'delete' && !lists) return undefined;
  return { level, lists, later: lists ? chosen.later : false, since: now.toISOString() };
}

/** The grant an API key is made with, from create_api_key's words (undefined: the whole person). */
export function keyGrant(access: 'readOnly' | 'noDeletes' | 'all', lists: string[] | null, later: boolean, now = new Date()): Grant | undefined {
  const level = ({ readOnly: 'read', noDeletes: 'write', all: 'delete' } as const)[access];
  if (level === 'delete' && !lists) return undefined;
  return { level, lists: lists ? [...new Set(lists)] : null, later: lists ? later : false, since: now.toISOString() };
}

/** Whether `held` already covers everything `asked` asks for (then a new authorization needs no consent). */
export function covers(held: Grant | undefined, asked: Grant | undefined): boolean {
  if (!held) return true;
  if (!asked) return false;
  if (!allows(held, asked.level)) return false;
  if (!held.lists) return true;
  if (!asked.lists) return false;
  return asked.lists.every((id) => held.lists!.includes(id)) && (!asked.later || held.later);
}

/**
 * The list ids a principal reaches, computed once per call: undefined when its grant names no
 * lists (every list of the person's). With "lists I make later", the person's lists made since
 * the grant count too.
 */
export async function reachOf(db: Knex, principal: Principal): Promise<string[] | undefined> {
  const grant = principal.grant;
  if (!grant?.lists) return undefined;
  if (!grant.later) return grant.lists;
  const later = (await db('lists').where({ owner_id: principal.userId }).andWhere('created_at', '>', grant.since).pluck('id')) as string[];
  return [...new Set([...grant.lists, ...later])];
}

/** The grant in plain words, one line each, for the consent page and Settings. */
export function grantInWords(grant: Grant | undefined, listNames: (id: string) => string): string[] {
  if (!grant) return ['Read, change and delete everything in your workspace.'];
  const level = {
    read: 'Read only: it can read, and change nothing.',
    write: 'Read and change, but delete nothing.',
    delete: 'Read, change and delete.',
  }[grant.level];
  if (!grant.lists) return [level, 'Every list.'];
  const names = grant.lists.map(listNames).join(', ') || 'no list';
  return [level, `Only these lists: ${names}${grant.later ? ', and lists you make later' : ''}.`];
}

/**
 * The grant of a credential as subscriptions and calendar feeds record it (`key:<api key id>`,
 * `grant:<OAuth grant id>`, `app:<app password id>`), read now so a change in Settings holds
 * for what it made too: undefined for the whole person, null for a credential that is gone.
 */
export async function grantOfCredential(db: Knex, credential: string): Promise<Grant | undefined | null> {
  const [kind, id] = [credential.slice(0, credential.indexOf(':')), credential.slice(credential.indexOf(':') + 1)];
  let row: { grant: unknown } | undefined;
  if (kind === 'key' && isUuid(id)) row = (await db('api_keys').where({ id }).first('grant')) as typeof row;
  else if (kind === 'app' && isUuid(id)) row = (await db('app_passwords').where({ id }).first('grant')) as typeof row;
  else if (kind === 'grant')
    row = (await db('oauth_payloads')
      .where({ model: 'Grant', id })
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
      .first(db.raw("payload->'connectionGrant' as grant"))) as typeof row;
  else return undefined;
  return row ? parseGrant(row.grant) : null;
}

/**
 * The lists what `credential` made (a subscription, a feed) reaches for the person `userId`
 * now: undefined for every list, [] when the credential is gone. No credential: the person's own.
 */
export async function reachOfCredential(db: Knex, userId: string, credential: string | null): Promise<string[] | undefined> {
  if (!credential) return undefined;
  const grant = await grantOfCredential(db, credential);
  if (grant === null) return [];
  return reachOf(db, { userId, via: 'apiKey', clientName: null, tokenId: credential, ...(grant ? { grant } : {}) });
}
