/**
 * One road for every write (ARCHITECTURE.md): the adapters (src/http, src/mcp, src/web,
 * src/cli) write through operations, never through the domain. What they may import from the
 * domain is listed below name by name: reads (a query that writes nothing), pure functions and
 * constants (no query at all), and the few writes that are no operation's, each with the files
 * that may use it and why. Any other value an adapter imports from the domain fails the test;
 * type-only imports pass (a type writes nothing). A `read` whose own body holds a write
 * statement, or a `pure` entry that queries, fails too: the check reads the function's own
 * body, not the functions it calls, so naming a writer a read is caught where it writes.
 * `.dependency-cruiser.cjs` holds the same modules (`make lint` refuses a value import from any other).
 */
import { describe, it, expect } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

interface Write {
  /** The adapter files that may import it. */
  only: string[];
  why: string;
}
type Entry = 'read' | 'pure' | Write;

const SESSION: Write = {
  only: ['src/web/sessions.ts'],
  why: 'signing this browser in and out: the session says who the person is, it is no change they make',
};

/** What adapters may import from the domain, by module and exported name. */
const ALLOWED: Record<string, Record<string, Entry>> = {
  'src/domain/accounts/accounts.ts': {
    checkEmail: 'pure',
    findUser: 'read',
    findUserByEmail: 'read',
    getUser: 'read',
    isTimeZone: 'pure',
    timeZoneOf: 'read',
    timeZones: 'pure',
    createUser: {
      only: ['src/web/sign-in.ts', 'src/cli/admin-accounts.ts'],
      why: 'an account is made before anyone is signed in: sign-up on the web, or `user create` by the operator',
    },
  },
  'src/domain/accounts/api-keys.ts': { apiKeyHint: 'read' },
  'src/domain/accounts/app-passwords.ts': { appPasswords: 'read' },
  'src/domain/accounts/grants.ts': {
    covers: 'pure',
    grantFromScopes: 'pure',
    GRANT_SCOPES: 'pure',
    isGrantScope: 'pure',
    narrowGrant: 'pure',
    grantInWords: 'pure',
    parseGrant: 'pure',
    reachOf: 'read',
  },
  'src/domain/accounts/memory.ts': { listMemory: 'read', MEMORY_MAX_CHARS: 'pure' },
  'src/domain/accounts/passwords.ts': { hashPassword: 'pure', passwordProblem: 'pure', verifyPassword: 'pure' },
  'src/domain/accounts/registration-limit.ts': {
    countRegistration: {
      only: ['src/web/oauth/server.ts'],
      why: "an app's registration counted by address, before any account is involved; only the authorization server sees the address",
    },
  },
  'src/domain/accounts/sessions.ts': { sessionUser: 'read', createSession: SESSION, deleteSession: SESSION },
  'src/domain/accounts/sign-in-throttle.ts': {
    signInThrottle: {
      only: ['src/web/sign-in.ts', 'src/web/settings.ts'],
      why: 'wrong passwords counted by address before anyone is signed in; only the page knows the address',
    },
  },
  'src/domain/automations/automations.ts': {
    automationDto: 'pure',
    getAutomation: 'read',
    lastRuns: 'read',
    latestRuns: 'read',
    listAutomations: 'read',
    timeZoneOf: 'read',
  },
  'src/domain/body/index.ts': { bodyVersion: 'pure' },
  'src/domain/caldav/objects.ts': {
    collectionChanges: 'read',
    collectionObjects: 'read',
    findObject: 'read',
    itemOfUid: 'read',
    syncMoment: 'read',
    taskCollection: 'read',
    taskCollections: 'read',
    saveObject: {
      only: ['src/http/caldav-writes.ts'],
      why: 'the calendar text a CalDAV client sent, kept beside the item for the properties listkeeper has no field for; the item itself is written by create_items or update_items just before',
    },
  },
  'src/domain/caldav/vtodo-read.ts': { dueInstant: 'pure', readTodo: 'pure', TodoError: 'pure' },
  'src/domain/changes/activity.ts': { activityPage: 'read' },
  'src/domain/changes/events.ts': { EVENT_CATALOG: 'pure', EVENT_NAMES: 'pure' },
  'src/domain/changes/subscriptions.ts': {
    listSubscriptions: 'read',
    secretProblem: 'pure',
    SubscriptionLimitError: 'pure',
    ...Object.fromEntries(
      ['upsertClientSubscription', 'removeClientSubscription'].map((name) => [
        name,
        {
          only: ['src/mcp/events.ts'],
          why: "MCP events/subscribe and unsubscribe are protocol methods with the extension's own parameters, errors and per-client upsert; like REST's subscriptions they log no activity and raise no change event, so an operation would add only a second schema",
        },
      ]),
    ),
  },
  'src/domain/chat/chat.ts': { chatForPage: 'read', mainConversation: 'read' },
  'src/domain/ids.ts': { isUuid: 'pure' },
  'src/domain/items/due-words.ts': { parseDue: 'pure' },
  'src/domain/items/enrich.ts': { readDueFromTitle: 'pure' },
  'src/domain/items/recurrence.ts': { parseRecurrence: 'pure' },
  'src/domain/items/urls.ts': { itemUrls: 'pure' },
  'src/domain/lists/lists.ts': { liveLists: 'read' },
  'src/domain/lists/shares.ts': Object.fromEntries(
    ['createShare', 'removeShare'].map((name) => [
      name,
      { only: ['src/cli/admin-accounts.ts'], why: "the operator's `share`: between two accounts, for neither of them" },
    ]),
  ),
  'src/domain/media/storage.ts': { uploadLimit: 'read' },
  'src/domain/media/uploads.ts': {
    checkedImage: 'pure',
    findUploadSlot: 'read',
    ImageRejected: 'pure',
    MAX_IMAGE_BYTES: 'pure',
    storedFileType: 'read',
    markUploaded: {
      only: ['src/http/files.ts'],
      why: 'the bytes of a slot create_image_upload reserved, sent to its signed URL (no principal, a binary body); the workspace changes when update_items attaches it',
    },
  },
  'src/domain/notifications/deliveries.ts': { recentDeliveries: 'read' },
  'src/domain/notifications/keys.ts': { notificationKeys: 'read', readUnsubscribeToken: 'pure' },
  'src/domain/notifications/settings.ts': { pushSubscriptions: 'read', readSettings: 'read' },
  'src/domain/time.ts': { localNow: 'pure', localParts: 'pure' },
  'src/domain/transfer/calendar-feed.ts': { readFeed: 'read' },
  'src/domain/transfer/import-plan.ts': { formatOfFile: 'pure' },
  'src/domain/transfer/imports.ts': { recentImports: 'read' },
};

const ADAPTERS = ['src/http', 'src/mcp', 'src/web', 'src/cli'];
/** The query builder's calls that write. */
const WRITE_CALLS = new Set(['insert', 'update', 'del', 'delete', 'upsert', 'merge', 'increment', 'decrement', 'truncate']);
/** The names a query starts from (`db('items')`, `trx('lists as l')`), as in test/structure/sql-home.test.ts. */
const QUERY_ROOTS = new Set(['db', 'trx', 'knex']);
/** SQL that writes, in a string. */
const WRITE_SQL = /\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|TRUNCATE)\b/i;
/** A query of any kind (as test/structure/sql-home.test.ts reads one). */
const QUERY = /\b(?:db|trx|knex|this\.db)\(\s*['"`]|\.raw\(|: Knex\b/;

interface Import {
  file: string;
  module: string;
  /** The exported name, or `*` / `default` for an import the list cannot name. */
  name: string;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

const parse = (file: string, text = readFileSync(file, 'utf8')) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

/** The repository path a relative module specifier of `from` names (`./x.js` is `./x.ts`). */
function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.posix.join(path.posix.dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => existsSync(candidate)) ?? `${base}.ts`;
}

/** The values a file imports (or re-exports) from the domain; type-only ones are left out. */
function domainImports(file: string, text?: string): Import[] {
  const found: Import[] = [];
  const source = parse(file, text);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      const module = arg && ts.isStringLiteral(arg) ? resolve(file, arg.text) : null;
      if (module?.startsWith('src/domain/')) found.push({ file, module, name: '*' });
    }
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const module = resolve(file, statement.moduleSpecifier.text);
      if (!module?.startsWith('src/domain/')) continue;
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        if (!clause || clause.isTypeOnly) continue;
        if (clause.name) found.push({ file, module, name: 'default' });
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) found.push({ file, module, name: '*' });
        if (bindings && ts.isNamedImports(bindings)) {
          for (const e of bindings.elements) if (!e.isTypeOnly) found.push({ file, module, name: (e.propertyName ?? e.name).text });
        }
      } else if (!statement.isTypeOnly) {
        const clause = statement.exportClause;
        if (!clause || !ts.isNamedExports(clause)) found.push({ file, module, name: '*' });
        else for (const e of clause.elements) if (!e.isTypeOnly) found.push({ file, module, name: (e.propertyName ?? e.name).text });
      }
    }
  }
  visit(source);
  return found;
}

/** Why an import is not allowed, or null when the list allows it. */
function refusal({ file, module, name }: Import): string | null {
  const entry = ALLOWED[module]?.[name];
  if (entry === undefined)
    return `${file} imports ${name} from ${module}: write through an operation (kit.call, callAsPerson, invoke), or list it here if it is a read`;
  if (typeof entry === 'object' && !entry.only.includes(file))
    return `${file} imports ${name} from ${module}, a write only ${entry.only.join(' and ')} may use (${entry.why})`;
  return null;
}

/** The declaration of an export, following re-exports (`export { x } from`, `export { x }` of an import, `export *`). */
function declarationOf(module: string, name: string, seen = new Set<string>()): { file: string; text: string } | null {
  if (seen.has(`${module}#${name}`) || !existsSync(module)) return null;
  seen.add(`${module}#${name}`);
  const source = parse(module);
  const imported = new Map<string, { module: string; name: string }>();
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
      if (exported && statement.name?.text === name) return { file: module, text: statement.getText(source) };
    } else if (ts.isVariableStatement(statement)) {
      if (exported && statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name))
        return { file: module, text: statement.getText(source) };
    } else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const bindings = statement.importClause?.namedBindings;
      const from = resolve(module, statement.moduleSpecifier.text);
      if (from && bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) imported.set(e.name.text, { module: from, name: (e.propertyName ?? e.name).text });
    } else if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? resolve(module, statement.moduleSpecifier.text) : null;
      const clause = statement.exportClause;
      if (!clause && from) {
        const found = declarationOf(from, name, seen);
        if (found) return found;
      } else if (clause && ts.isNamedExports(clause)) {
        const e = clause.elements.find((el) => el.name.text === name);
        const local = e && (e.propertyName ?? e.name).text;
        const target = local === undefined ? null : from ? { module: from, name: local } : imported.get(local);
        if (target) return declarationOf(target.module, target.name, seen);
      }
    }
  }
  return null;
}

/** The call or name a chain of calls (`db('x').where(…).update(…)`) starts from. */
function rootOf(node: ts.Expression): ts.Expression {
  let at = node;
  while (
    ts.isCallExpression(at) ||
    ts.isPropertyAccessExpression(at) ||
    ts.isNonNullExpression(at) ||
    ts.isParenthesizedExpression(at) ||
    ts.isAwaitExpression(at)
  )
    at = ts.isCallExpression(at) ? at.expression : at.expression;
  return at;
}

/**
 * Whether a declaration writes: a writing call on a query (a chain from `db(…)`, `trx(…)` or
 * `knex(…)`, or from a variable set to one), or a string of SQL that writes. A hash's `update`
 * or a Map's `delete` is not a query.
 */
function writes(text: string): boolean {
  const source = ts.createSourceFile('declaration.ts', text, ts.ScriptTarget.Latest, true);
  const queries = new Set<string>();
  let found = false;
  const isQuery = (expression: ts.Expression): boolean => {
    const root = rootOf(expression);
    return ts.isIdentifier(root) && (QUERY_ROOTS.has(root.text) || queries.has(root.text));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isQuery(node.initializer)) queries.add(node.name.text);
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      WRITE_CALLS.has(node.expression.name.text) &&
      isQuery(node.expression.expression)
    )
      found = true;
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && WRITE_SQL.test(node.text)) found = true;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether a listed read or pure entry is what the list says; null when it is. */
function kindProblem(module: string, name: string, kind: 'read' | 'pure'): string | null {
  const declaration = declarationOf(module, name);
  if (!declaration) return `${module} exports no ${name}`;
  if (writes(declaration.text)) return `${name} (${declaration.file}) is listed as ${kind} but writes`;
  if (kind === 'pure' && QUERY.test(declaration.text)) return `${name} (${declaration.file}) is listed as pure but queries the database`;
  return null;
}

const imports = ADAPTERS.flatMap(tsFiles).flatMap((file) => domainImports(file));

describe('adapters write through operations', () => {
  it('refuses a write imported from the domain, in every form (the check can fail)', () => {
    const planted = [
      "import { addMemory } from '../domain/accounts/memory.js';",
      "import * as memory from '../domain/accounts/memory.js';",
      "export { removeMemory } from '../domain/accounts/memory.js';",
      "const later = () => import('../domain/accounts/memory.js');",
      "import { createShare } from '../domain/lists/shares.js';",
      "import { type MemoryRow, listMemory } from '../domain/accounts/memory.js';",
      "import type { AutomationRow } from '../domain/automations/automations.js';",
    ].join('\n');
    const found = domainImports('src/web/planted.ts', planted);
    expect(found.map((i) => i.name)).toEqual(['addMemory', '*', 'removeMemory', 'createShare', 'listMemory', '*']);
    expect(found.map(refusal).filter(Boolean)).toHaveLength(5);
    expect(refusal({ file: 'src/web/planted.ts', module: 'src/domain/lists/shares.ts', name: 'createShare' })).toMatch(
      /only src\/cli\/admin-accounts\.ts may use/,
    );
  });

  it('finds the imports adapters make from the domain', () => {
    expect(imports.length).toBeGreaterThan(40);
    expect(imports).toContainEqual({ file: 'src/web/item-page.ts', module: 'src/domain/chat/chat.ts', name: 'chatForPage' });
    expect(imports).toContainEqual({ file: 'src/cli/due-dates.ts', module: 'src/domain/items/due-words.ts', name: 'parseDue' });
  });

  it('imports from the domain only what the list allows, where it allows it', () => {
    expect(imports.map(refusal).filter(Boolean)).toEqual([]);
  });

  it('lists nothing no adapter imports any more', () => {
    const used = new Set(imports.map((i) => `${i.module}#${i.name}`));
    const listed = Object.entries(ALLOWED).flatMap(([module, names]) => Object.keys(names).map((name) => `${module}#${name}`));
    expect(listed.filter((key) => !used.has(key))).toEqual([]);
  });

  it('catches a writer listed as a read, and a query listed as pure (the check can fail)', () => {
    expect(kindProblem('src/domain/chat/chat.ts', 'markChatRead', 'read')).toMatch(/listed as read but writes/);
    expect(kindProblem('src/domain/accounts/memory.ts', 'removeMemory', 'read')).toMatch(/listed as read but writes/);
    expect(kindProblem('src/domain/accounts/sessions.ts', 'createSession', 'read')).toMatch(/listed as read but writes/);
    expect(writes("async function f(db) { const q = db('items').where({ id }); await q.update({ title: 'x' }); }")).toBe(true);
    expect(writes("async function f(db) { await db.raw('DELETE FROM items WHERE id = ?', [id]); }")).toBe(true);
    expect(writes("function f(body) { cache.delete(body); return createHash('sha256').update(body).digest('hex'); }")).toBe(false);
    expect(kindProblem('src/domain/automations/automations.ts', 'listAutomations', 'pure')).toMatch(/listed as pure but queries/);
    expect(kindProblem('src/domain/automations/automations.ts', 'timeZoneOf', 'read')).toBeNull();
    expect(kindProblem('src/domain/body/index.ts', 'noSuchThing', 'pure')).toMatch(/exports no noSuchThing/);
  });

  it('holds a read to writing nothing and a pure entry to no query', () => {
    const problems = Object.entries(ALLOWED).flatMap(([module, names]) =>
      Object.entries(names).flatMap(([name, entry]) => (typeof entry === 'string' ? [kindProblem(module, name, entry)] : [])),
    );
    expect(problems.filter(Boolean)).toEqual([]);
  });

  it('names the same modules as the dependency-cruiser rule', () => {
    const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
      forbidden: { name: string; to: { path: string; pathNot?: string[] } }[];
    };
    const rule = config.forbidden.find((r) => r.name === 'adapters-import-listed-domain-modules');
    expect(rule?.to.path).toBe('^src/domain/');
    expect([...(rule?.to.pathNot ?? [])].sort()).toEqual(
      Object.keys(ALLOWED)
        .map((m) => `^${m.replace(/[.]/g, '\\.')}$`)
        .sort(),
    );
  });
});
