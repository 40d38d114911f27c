/**
 * The layers of src/, bottom to top; a file imports only from its own folder and the ones below
 * (ARCHITECTURE.md draws them). Type-only imports count too. `make lint` runs this.
 *
 *   core, generated (the generated tables use core/operation-spec.ts) → store, files → domain → search, jobs → operations, auth → http, mcp, web, cli → app.ts, main.ts
 */
const layer = (name) => `^src/${name}/`;
const above = {
  generated: ['store', 'files', 'domain', 'search', 'jobs', 'operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  core: ['store', 'files', 'domain', 'search', 'jobs', 'operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  store: ['files', 'domain', 'search', 'jobs', 'operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  files: ['store', 'domain', 'search', 'jobs', 'operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  domain: ['search', 'jobs', 'operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  search: ['jobs', 'operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  jobs: ['operations', 'auth', 'http', 'mcp', 'web', 'cli'],
  operations: ['jobs', 'auth', 'http', 'mcp', 'web', 'cli'],
  auth: ['operations', 'http', 'mcp', 'web', 'cli'],
  http: ['mcp', 'web', 'cli'],
  mcp: ['http', 'web', 'cli'],
  web: ['http', 'mcp', 'cli'],
  cli: ['http', 'mcp', 'web'],
};
const composition = '^src/(app|main|serve|tracing)\\.ts$';

/**
 * The domain's folders, by aggregate, bottom to top: a folder imports only from the files at the
 * domain's root (ids, time, cursors) and the folders before it, so no two folders lean on each
 * other (ARCHITECTURE.md, "The domain").
 */
const domainFolders = [
  'changes',
  'lists',
  'accounts',
  'media',
  'body',
  'items',
  'chat',
  'notifications',
  'trash',
  'automations',
  'query',
  'transfer',
  'caldav',
];
const domainRules = domainFolders.map((folder, i) => {
  const banned = domainFolders.slice(i + 1);
  return banned.length === 0
    ? null
    : {
        name: `domain-${folder}-imports-only-earlier-folders`,
        comment: `src/domain/${folder}/ may not import from ${banned.join(', ')}: the domain's folders run ${domainFolders.join(' → ')} (ARCHITECTURE.md, "The domain").`,
        severity: 'error',
        from: { path: `^src/domain/${folder}/` },
        to: { path: `^src/domain/(${banned.join('|')})/` },
      };
});
const domainRoot = {
  name: 'domain-root-imports-no-folder',
  comment: "The domain's root files (ids, time, cursors) are what every folder shares: they import no folder of the domain.",
  severity: 'error',
  from: { path: '^src/domain/[^/]+\\.ts$' },
  to: { path: '^src/domain/[^/]+/' },
};

/**
 * The domain modules an adapter may import values from: reads, pure functions, and the few
 * writes that are no operation's. Every other write goes through an operation (ARCHITECTURE.md,
 * "One road for every write"); test/structure/adapter-writes.test.ts lists what each module may
 * give, name by name, and checks this list against its own.
 */
const adapterDomainModules = [
  'accounts/accounts',
  'accounts/api-keys',
  'accounts/app-passwords',
  'accounts/grants',
  'accounts/memory',
  'accounts/passwords',
  'accounts/registration-limit',
  'accounts/sessions',
  'accounts/sign-in-throttle',
  'automations/automations',
  'body/index',
  'caldav/objects',
  'caldav/vtodo-read',
  'changes/activity',
  'changes/events',
  'changes/subscriptions',
  'chat/chat',
  'ids',
  'items/due-words',
  'items/enrich',
  'items/recurrence',
  'items/urls',
  'lists/lists',
  'lists/shares',
  'media/storage',
  'media/uploads',
  'notifications/deliveries',
  'notifications/keys',
  'notifications/settings',
  'time',
  'transfer/calendar-feed',
  'transfer/import-plan',
  'transfer/imports',
];

module.exports = {
  forbidden: [
    ...Object.entries(above).map(([from, banned]) => ({
      name: `${from}-imports-only-downward`,
      comment: `src/${from}/ may not import from ${banned.join(', ')} or the composition root (see ARCHITECTURE.md, "Layers").`,
      severity: 'error',
      from: { path: layer(from) },
      to: { path: [`^src/(${banned.join('|')})/`, composition] },
    })),
    ...domainRules.filter(Boolean),
    domainRoot,
    {
      name: 'domain-has-only-known-folders',
      comment: `A new folder of the domain takes its place in domainFolders (${domainFolders.join(', ')}).`,
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `^src/domain/(?!(${domainFolders.join('|')})/)[^/]+/` },
    },
    {
      name: 'adapters-import-listed-domain-modules',
      comment:
        'An adapter writes through an operation (kit.call, callAsPerson, invoke). From the domain it imports values only of the modules listed in adapterDomainModules; test/structure/adapter-writes.test.ts says which names, and why.',
      severity: 'error',
      from: { path: '^src/(http|mcp|web|cli)/' },
      to: {
        path: '^src/domain/',
        pathNot: adapterDomainModules.map((m) => `^src/domain/${m.replace(/[.]/g, '\\.')}\\.ts$`),
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes two files one; split what both need into a file below them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-does-not-import-tests-or-tools',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|codegen|tools)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
