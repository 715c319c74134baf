/**
 * The floors of Concord's code, bottom to top. A module may import its own floor and the floors below it, never one
 * above: the next arrow up fails `npm run lint` (and so .ci/run). `npm run layers` prints the figures.
 *
 *   shared      the contract and the rules both sides need (the renderer sees only this)
 *   platform    git, the OS sandbox, the command environment, logs, paths, the data folder, secrets, the event bus
 *   store       SQLite: the only place with SQL
 *   domain      use cases: harness/ (decisions, tasks, reports, members), repo/ (the workspace's git), export/
 *   runtime     member hosts and engines: the built-in loop, ACP, the MCP serving of Concord's tools, tools/
 *   faces       api/ (the handlers of the contract; concord-mcp/: `concord mcp`)
 *   core        core.ts: the composition root that wires one workspace's floors together
 *   transport   Electron IPC and the browser bridge, bound to a core
 *   shell       the Electron app (index.ts, its window and notices), the preload, the command line
 *
 * A module under electron/main on no floor is itself a violation (`unplaced`): a new folder is given a floor here.
 */
const layers = [
  { name: 'shared', path: ['^shared/'] },
  {
    name: 'platform',
    path: ['^electron/main/platform/'],
  },
  { name: 'store', path: ['^electron/main/store/'] },
  { name: 'domain', path: ['^electron/main/(harness|repo|export)/'] },
  { name: 'runtime', path: ['^electron/main/runtime/'] },
  { name: 'faces', path: ['^electron/main/api/'] },
  { name: 'core', path: ['^electron/main/core\\.ts$'] },
  { name: 'transport', path: ['^electron/main/transport/'] },
  {
    name: 'shell',
    path: ['^electron/main/index\\.ts$', '^electron/main/shell/', '^electron/preload/', '^electron/cli/'],
  },
]

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} imports a floor above it (${layers
    .slice(i + 1)
    .map((l) => l.name)
    .join(', ')}): move the rule it needs down, or the importing code up`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: layers.slice(i + 1).flatMap((l) => l.path) },
}))

/**
 * The harness's aggregates, bottom to top: each answers for its own records and may use the ones below it, never one
 * above (a decision's change reaches tasks and reports; a report reads its task; a task reads its tree). The kernel is
 * what every aggregate stands on: ids, the request context, the read rules and the mappers to the contract's shapes.
 */
const aggregates = [
  { name: 'kernel', path: ['^electron/main/harness/[^/]+\\.ts$', '^electron/main/harness/rules/'] },
  { name: 'members', path: ['^electron/main/harness/members/'] },
  { name: 'workspace', path: ['^electron/main/harness/workspace/'] },
  { name: 'tasks', path: ['^electron/main/harness/tasks/'] },
  { name: 'reports', path: ['^electron/main/harness/reports/'] },
  { name: 'decisions', path: ['^electron/main/harness/decisions/'] },
]

const aggregateOrder = aggregates.slice(0, -1).map((agg, i) => ({
  name: `aggregate-${agg.name}`,
  comment: `harness/${agg.name} imports an aggregate above it (${aggregates
    .slice(i + 1)
    .map((a) => a.name)
    .join(', ')}): move what it needs down, or have the aggregate above call it`,
  severity: 'error',
  from: { path: agg.path },
  to: { path: aggregates.slice(i + 1).flatMap((a) => a.path) },
}))

/**
 * The renderer's floors, bottom to top: the client of the contract, helpers, the zustand stores (and the hand-offs
 * between panels), the kit of components every feature uses, the features, and the app that lays them out.
 */
const rendererFloors = [
  { name: 'api', path: ['^renderer/src/api/'] },
  { name: 'lib', path: ['^renderer/src/lib/'] },
  { name: 'stores', path: ['^renderer/src/stores/'] },
  { name: 'components', path: ['^renderer/src/components/'] },
  { name: 'features', path: ['^renderer/src/features/'] },
  { name: 'app', path: ['^renderer/src/app/', '^renderer/src/main\\.tsx$'] },
]

const rendererOrder = rendererFloors.slice(0, -1).map((floor, i) => ({
  name: `renderer-${floor.name}`,
  comment: `renderer/src/${floor.name} imports a floor above it (${rendererFloors
    .slice(i + 1)
    .map((f) => f.name)
    .join(', ')}): move what it needs down (a store, a component of the kit)`,
  severity: 'error',
  from: { path: floor.path },
  to: { path: rendererFloors.slice(i + 1).flatMap((f) => f.path) },
}))

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    ...aggregateOrder,
    ...rendererOrder,
    {
      // Named layer-* so that `npm run layers` counts it with the arrows up (scripts/layers.ts).
      name: 'layer-runtime-not-store',
      comment:
        'the runtime and the faces reach the store through the harness (its ctx, its use cases, harness/rows.ts for the row types), never by importing it: decisions about what to do belong to the harness',
      severity: 'error',
      from: { path: '^electron/main/(runtime|api)/' },
      to: { path: '^electron/main/store/' },
    },
    {
      name: 'renderer-sees-shared-only',
      comment: 'the renderer reaches the core only through the contract in shared/ (window.api, the bridge)',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(electron|test|bench|eval|scripts)/' },
    },
    {
      name: 'shared-is-the-floor',
      comment: 'shared/ is the floor both sides stand on: it imports neither side',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(electron|renderer)/' },
    },
    {
      name: 'unplaced',
      comment: 'a module under electron/ on no floor: give its folder a floor in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^electron/', pathNot: layers.flatMap((l) => l.path) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'modules that import each other (through any path): move what both need into a lower module',
      severity: 'error',
      from: { path: '^(electron|shared|renderer)/' },
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: '^(electron|shared|renderer/src)/',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
}
