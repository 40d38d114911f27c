/**
 * The simulated agents' accounts: one person per agent, each with its own lists and items
 * (written through create_items, so the outbox indexes them for search) and its own token:
 * an API key, or an OAuth access token got through the whole flow (registration, sign-in,
 * consent, code exchange) as an MCP client gets one. Half of each kind talk MCP.
 */
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadConfig } from '../../src/core/config.js';
import { createServices } from '../../src/core/services.js';
import type { OperationContext } from '../../src/core/context.js';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { invoke } from '../../src/operations/dispatch.js';
import { HttpBrowser, authorizeInBrowser, authorizeUrl, codeFrom, pkce, redeemCode, registerClient } from '../../test/support/oauth.js';
import type { AgentAccount } from './mix.js';

const PASSWORD = 'bench agent password';
const WORDS = ['invoice', 'garden', 'passport', 'dentist', 'budget', 'flight', 'report', 'kitchen', 'meeting', 'insurance', 'renew', 'call'];

export interface AccountMaker {
  /** Makes accounts until there are `n`, minting OAuth tokens through the server at `baseUrl`. */
  grow(n: number, baseUrl: string): Promise<AgentAccount[]>;
  readonly accounts: AgentAccount[];
}

export function accountMaker(db: Knex, itemsPerAgent: number): AccountMaker {
  const accounts: AgentAccount[] = [];
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', EMBEDDINGS: 'none' });
  const services = createServices();
  const log = pino({ level: 'silent' });
  let passwordHash: Promise<string> | undefined;
  let registered: Promise<{ clientId: string; redirectUri: string }> | undefined;
  const stamp = Date.now();

  async function makeOne(i: number, baseUrl: string): Promise<AgentAccount> {
    const email = `agent-${stamp}-${i}@example.com`;
    const user = await createUser(db, { email, name: `Agent ${i}`, timezone: 'Europe/London', passwordHash: await (passwordHash ??= hashPassword(PASSWORD)) });
    const ctx: OperationContext = { principal: { userId: user.id, via: 'apiKey', clientName: null, tokenId: `key:${user.id}` }, db, config, services, log };
    const entries = Array.from({ length: itemsPerAgent }, (_, n) => ({
      title: `${WORDS[(i + n) % WORDS.length]} ${WORDS[(i * 7 + n) % WORDS.length]} ${n}`,
      ...(n % 3 === 0 ? { body: `## Notes\n\n- ${WORDS[n % WORDS.length]} first\n- then the ${WORDS[(n + 5) % WORDS.length]}\n\nDetails for ${n}.` } : {}),
      ...(n % 2 === 0 ? { dueAt: new Date(Date.now() + (n - 10) * 86_400_000).toISOString() } : {}),
    }));
    const created = (await invoke(ctx, 'create_items', { params: {}, body: { listId: 'tasks', items: entries } })) as {
      items: { id: string; listId: string }[];
    };
    const tasksListId = created.items[0]!.listId;
    const seq = (await db('items').where({ list_id: tasksListId }).max('feed_seq as s').first()) as { s: string | null };
    const via = Math.floor(i / 2) % 2 === 0 ? 'apiKey' : 'oauth';
    const token = via === 'apiKey' ? await createApiKey(db, user.id) : await oauthToken(baseUrl, email);
    return { userId: user.id, token, via, mcp: i % 2 === 1, tasksListId, itemIds: created.items.map((it) => it.id), feedSeq: String(seq.s ?? 0) };
  }

  async function oauthToken(baseUrl: string, email: string): Promise<string> {
    const client = await (registered ??= registerClient(baseUrl, 'Bench agents'));
    const { verifier, challenge } = pkce();
    const { location } = await authorizeInBrowser(new HttpBrowser(baseUrl), authorizeUrl(baseUrl, client, challenge), { email, password: PASSWORD });
    const { status, body } = await redeemCode(baseUrl, { client, verifier, code: codeFrom(location) });
    if (status !== 200 || typeof body.access_token !== 'string') throw new Error(`token exchange answered ${status}: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  return {
    accounts,
    async grow(n, baseUrl) {
      // Four at a time: the sign-in's argon2 and the seeding share the machine with the server.
      while (accounts.length < n) {
        const batch = Array.from({ length: Math.min(4, n - accounts.length) }, (_, k) => accounts.length + k);
        accounts.push(...(await Promise.all(batch.map((i) => makeOne(i, baseUrl)))));
        if (accounts.length % 50 === 0) process.stderr.write(`[agents] ${accounts.length}/${n} accounts\n`);
      }
      return accounts.slice(0, n);
    },
  };
}
