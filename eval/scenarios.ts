/**
 * The scenarios of the experiment: the seed's Web Search scenario, and variants generated from a seed. A scenario
 * is only data (team, decisions, tasks, and the decision changes with the moment each one lands); every arm runs
 * the same scenario, so the arms meet the same team, the same tasks and the same changes at the same moments.
 */
import { Prng } from './prng'
import { at } from './at'

export type Role = 'implementer' | 'tester' | 'reviewer' | 'lead'
export type Moment = 'todo' | 'in_progress' | 'delivered' | 'accepted'
export type ChangeKind = 'normative' | 'editorial' | 'revert' | 'proposal'

export interface ScenarioMember {
  name: string
  role: Role
  /** Proposers may propose a change; the human (always a decider) accepts it. */
  authority: 'proposer' | 'observer'
}
export interface ScenarioDecision {
  title: string
  statement: string
  /** Why it was decided: part of the decision's full text (what a broadcast of it carries). */
  rationale: string
}
export interface ScenarioTask {
  title: string
  /** Member indexes: who implements, who tests, who reviews. */
  assignee: number
  tester: number
  reviewer: number
  /** Decision indexes the task depends on. */
  decisions: number[]
  /** Task indexes that must be accepted before this one starts. */
  blockedBy: number[]
  /** Steps of work to deliver it. */
  effort: number
}
export interface ScenarioChange {
  decision: number
  kind: ChangeKind
  /** The new statement (normative, editorial, proposal); null for a revert, which goes back to the first version. */
  statement: string | null
  /** The member who proposes it (kind proposal). */
  proposer: number | null
  /** Lands when this task has reached this moment (or later), not before tick notBefore. */
  at: { task: number; moment: Moment; notBefore: number }
}
export interface Scenario {
  name: string
  members: ScenarioMember[]
  decisions: ScenarioDecision[]
  tasks: ScenarioTask[]
  changes: ScenarioChange[]
}

/** An editorial remark: wording only. Members compare decisions without it (see normative in world.ts). */
export const EDITORIAL_NOTE = ' (wording clarified)'

/**
 * The seed's scenario: a search timeout of 30 s first returns an error, then (the change, while the tester and
 * reviewer check the delivered tool and the implementer is on the next task) returns the partial results, marked
 * incomplete.
 */
export function webSearchScenario(): Scenario {
  return {
    name: 'web-search',
    members: [
      { name: 'Impl', role: 'implementer', authority: 'proposer' },
      { name: 'Tess', role: 'tester', authority: 'observer' },
      { name: 'Rev', role: 'reviewer', authority: 'observer' },
    ],
    decisions: [
      {
        title: 'Search timeout',
        statement: 'Web search gives up after 30 s and returns an error',
        rationale: rationale('Search timeout'),
      },
      {
        title: 'Result shape',
        statement: 'Each search result has a title, a URL and a snippet',
        rationale: rationale('Result shape'),
      },
      {
        title: 'Search provider',
        statement: "Search calls the configured provider's HTTP API",
        rationale: rationale('Search provider'),
      },
    ],
    tasks: [
      { title: 'Web search tool', assignee: 0, tester: 1, reviewer: 2, decisions: [0, 2], blockedBy: [], effort: 3 },
      { title: 'Result list', assignee: 0, tester: 1, reviewer: 2, decisions: [1], blockedBy: [], effort: 2 },
      {
        title: 'Incomplete-results banner',
        assignee: 0,
        tester: 1,
        reviewer: 2,
        decisions: [0, 1],
        blockedBy: [0],
        effort: 2,
      },
    ],
    changes: [
      {
        decision: 0,
        kind: 'normative',
        statement: 'Web search gives up after 30 s and returns the partial results, marked incomplete',
        proposer: null,
        at: { task: 0, moment: 'accepted', notBefore: 0 },
      },
    ],
  }
}

/** A decision's rationale: one sentence of the same shape for every decision (it draws nothing from the PRNG). */
const rationale = (title: string): string =>
  `One rule for ${title.toLowerCase()} across the product, so that the implementation, its tests and its reviews check the same thing.`

/** Decision subjects and the options a change picks among. */
const TOPICS: [title: string, options: string[]][] = [
  [
    'Search timeout',
    [
      'Web search gives up after 5 s',
      'Web search gives up after 10 s',
      'Web search gives up after 30 s and returns partial results marked incomplete',
    ],
  ],
  ['API style', ['The service API is REST with JSON bodies', 'The service API is GraphQL', 'The service API is gRPC']],
  ['Storage', ['Records are stored in SQLite', 'Records are stored in PostgreSQL', 'Records are stored as JSON files']],
  [
    'Auth',
    ['Users sign in with a session cookie', 'Users sign in with a bearer JWT', 'Users sign in with OAuth device flow'],
  ],
  [
    'Pagination',
    ['Lists page by offset, 50 per page', 'Lists page by cursor, 100 per page', 'Lists return everything at once'],
  ],
  ['Dates', ['Dates are ISO 8601 in UTC', 'Dates are Unix seconds', 'Dates are ISO 8601 in local time with offset']],
  [
    'Errors',
    [
      'Errors carry a stable code and a message',
      'Errors are plain text messages',
      'Errors follow RFC 9457 problem details',
    ],
  ],
  [
    'Retries',
    ['Failed calls retry 3 times with backoff', 'Failed calls never retry', 'Failed calls retry once after 1 s'],
  ],
  ['Logging', ['Logs are JSON lines', 'Logs are plain text lines', 'Logs go to syslog']],
  [
    'Cache',
    ['Responses are cached for 60 s', 'Responses are never cached', 'Responses are cached until the data changes'],
  ],
  ['Limits', ['Uploads are limited to 10 MB', 'Uploads are limited to 100 MB', 'Uploads are not limited']],
  ['Locale', ['Text is English only', 'Text is translated into English and German', 'Text follows the system locale']],
  [
    'IDs',
    ['Records are keyed by UUID v4', 'Records are keyed by auto-increment integers', 'Records are keyed by ULID'],
  ],
  ['Export', ['Exports are CSV', 'Exports are JSON', 'Exports are CSV and JSON']],
]

const MOMENTS: Moment[] = ['todo', 'in_progress', 'delivered', 'accepted']

/** Variant `index` of the seed: 3–8 members, 3–12 decisions, 5–40 tasks, 1–5 changes. */
export function generateScenario(seed: number, index: number): Scenario {
  const g = new Prng(seed, index, 0x5ce7)
  const size = g.int(3, 8)
  const members: ScenarioMember[] = [
    { name: 'Tess', role: 'tester', authority: 'observer' },
    { name: 'Rev', role: 'reviewer', authority: 'observer' },
    { name: 'Impl1', role: 'implementer', authority: 'proposer' },
  ]
  if (size >= 4 && g.chance(0.6)) members.push({ name: 'Lead', role: 'lead', authority: 'proposer' })
  if (size >= 6) members.push({ name: 'Tess2', role: 'tester', authority: 'observer' })
  while (members.length < size)
    members.push({
      name: `Impl${members.filter((m) => m.role === 'implementer').length + 1}`,
      role: 'implementer',
      authority: 'proposer',
    })
  const who = (role: Role) => members.flatMap((m, i) => (m.role === role ? [i] : []))
  const implementers = who('implementer')
  const testers = who('tester')
  const reviewers = who('reviewer')

  const topics = g.shuffle(TOPICS).slice(0, g.int(3, 12))
  const decisions = topics.map(([title, options]) => ({
    title,
    statement: g.pick(options),
    rationale: rationale(title),
  }))

  const taskCount = g.int(5, 40)
  const tasks: ScenarioTask[] = []
  for (let i = 0; i < taskCount; i++) {
    const deps = g.shuffle(decisions.map((_, d) => d)).slice(0, g.int(1, Math.min(3, decisions.length)))
    const blockedBy =
      i > 0 && g.chance(0.3) ? [...new Set([g.int(0, i - 1), ...(g.chance(0.3) ? [g.int(0, i - 1)] : [])])] : []
    tasks.push({
      title: `Task ${i + 1}`,
      assignee: g.pick(implementers),
      tester: at(testers, i % testers.length),
      reviewer: at(reviewers, i % reviewers.length),
      decisions: deps.sort((a, b) => a - b),
      blockedBy,
      effort: g.int(1, 3),
    })
  }

  // The changes, each on a decision some task depends on, at a moment of one of those tasks.
  const current = decisions.map((d) => d.statement)
  const changedOnce = new Set<number>()
  const changes: ScenarioChange[] = []
  const changeCount = g.int(1, 5)
  for (let c = 0; c < changeCount; c++) {
    const used = [...new Set(tasks.flatMap((t) => t.decisions))]
    let decision = g.pick(used)
    let kind: ChangeKind = 'normative'
    const roll = g.next()
    if (c > 0 && roll < 0.2) kind = 'editorial'
    else if (c > 0 && roll < 0.4 && changedOnce.size > 0) kind = 'revert'
    else if (roll < 0.6) kind = 'proposal'
    if (kind === 'revert') decision = g.pick([...changedOnce].sort((a, b) => a - b))
    let statement: string | null
    if (kind === 'editorial')
      statement = at(current, decision).endsWith(EDITORIAL_NOTE)
        ? at(current, decision).slice(0, -EDITORIAL_NOTE.length)
        : at(current, decision) + EDITORIAL_NOTE
    else if (kind === 'revert') statement = null
    else {
      const options = at(topics, decision)[1].filter((o) => o !== at(current, decision).replace(EDITORIAL_NOTE, ''))
      statement = g.pick(options)
    }
    if (kind === 'revert' && current[decision] === at(decisions, decision).statement) kind = 'editorial' // nothing to go back to
    if (kind === 'editorial' && statement === null) statement = at(current, decision) + EDITORIAL_NOTE
    current[decision] = statement ?? at(decisions, decision).statement
    if (kind === 'normative' || kind === 'proposal') changedOnce.add(decision)
    const dependents = tasks.flatMap((t, i) => (t.decisions.includes(decision) ? [i] : []))
    changes.push({
      decision,
      kind,
      statement,
      proposer: kind === 'proposal' ? g.pick(implementers) : null,
      at: { task: g.pick(dependents), moment: g.pick(MOMENTS), notBefore: g.int(0, 12) },
    })
  }
  return { name: `variant-${index + 1}`, members, decisions, tasks, changes }
}

/** The Web Search scenario and `variants` generated ones. */
export function scenarios(seed: number, variants: number): Scenario[] {
  return [webSearchScenario(), ...Array.from({ length: variants }, (_, i) => generateScenario(seed, i))]
}
