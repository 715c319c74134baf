/**
 * Property test: random sequences of decision edits (normative, editorial, whitespace-only, withdrawals,
 * reverts), task status changes, reports, acknowledgements and acceptances. After every step the whole
 * observable state — every task's status, flag and links, every report's basis, claims and validity, the
 * edit's impact, the notices, the acceptance outcome — must equal what a model predicts. The model knows
 * only DESIGN §2: per decision its normative text per version, per link, basis entry and claim the
 * content it was pinned to. It never reads a link state, fingerprint or claim state from the code under test.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Core } from '../../electron/main/core'
import type { Impact, ImpactReport, ImpactTask, Report, Task } from '../../shared/schemas'
import { canMove } from '../../shared/task-rules'
import { makeCore } from '../fixtures/core'

type DecisionStatus = 'accepted' | 'proposed' | 'rejected'
type TaskStatus = 'todo' | 'in_progress' | 'delivered' | 'accepted' | 'cancelled'
type Flag = 'requirements_updated' | 'needs_adjustment' | 'needs_reverification'
type Kind = 'test' | 'review'
type Verdict = 'pass' | 'fail' | 'partial'

// 'Use   GraphQL' differs from 'Use GraphQL' only in whitespace: a new revision, the same normative content.
const STATEMENTS = ['Use REST', 'Use GraphQL', 'Use gRPC', 'Use   GraphQL']
const COMMITS = ['a'.repeat(40), 'b'.repeat(40)]
const MEMBERS = 2
// Per task: the decisions it depends on, its assignee (member index) and the reports acceptance requires.
const TASKS: { deps: number[]; assignee: number | null; required: Kind[] }[] = [
  { deps: [0, 1], assignee: 0, required: ['test', 'review'] },
  { deps: [1, 2], assignee: 1, required: ['test', 'review'] },
  { deps: [0, 2], assignee: 0, required: ['test', 'review'] },
  { deps: [0, 1, 2], assignee: 1, required: ['test', 'review'] },
  { deps: [2], assignee: null, required: ['test'] },
]

// ---------------------------------------------------------------------------------------------------------------------
// The model

/** What binds dependents (DESIGN §2): the statement, whitespace aside, and whether the decision is withdrawn. */
function normativeText(statement: string, status: DecisionStatus): string {
  return `${status === 'rejected' ? 'withdrawn' : 'in force'}|${statement.trim().split(/\s+/).join(' ')}`
}

interface Version {
  statement: string
  status: DecisionStatus
  editorial: boolean
  text: string
  /** The content evidence pinned to this version stands for: an editorial edit keeps the previous one. */
  meaning: string
}
interface Pin {
  version: number
  meaning: string
}
interface ModelTask {
  id: string
  assignee: number | null
  required: Kind[]
  status: TaskStatus
  flag: Flag | null
  artifact: string | null
  links: Map<number, Pin>
}
interface ModelReport {
  id: string
  task: number
  author: number
  kind: Kind
  verdict: Verdict
  commit: string
  basis: Map<number, Pin>
  claims: { id: string; pins: Map<number, string> }[]
}
interface ExpectedNotice {
  member: number
  taskIds: string[]
  reportIds: string[]
}
type Reason = [code: 'evidence_missing' | 'evidence_stale', reportId: string | null]
/** An impact as the model states it (keys such as T-3 are display names, not compared). */
interface ExpectedImpact {
  normative: boolean
  tasks: Omit<ImpactTask, 'key'>[]
  reports: Omit<ImpactReport, 'key'>[]
  notifiedMemberIds: string[]
}

const STRENGTH: Flag[] = ['requirements_updated', 'needs_adjustment', 'needs_reverification']
const FLAG_OF: Record<Exclude<TaskStatus, 'cancelled'>, Flag> = {
  todo: 'requirements_updated',
  in_progress: 'needs_adjustment',
  delivered: 'needs_reverification',
  accepted: 'needs_reverification',
}
const stronger = (a: Flag, b: Flag | null): Flag => (b !== null && STRENGTH.indexOf(b) > STRENGTH.indexOf(a) ? b : a)
const byKey = <T>(items: T[]) => [...items].sort()

class Model {
  decisions: { id: string; versions: Version[] }[] = []
  tasks: ModelTask[] = []
  reports: ModelReport[] = []
  notices: ExpectedNotice[] = []

  constructor(readonly members: string[]) {}

  head(d: number): Version {
    return this.decisions[d]!.versions.at(-1)!
  }

  pin(d: number): Pin {
    return { version: this.decisions[d]!.versions.length, meaning: this.head(d).meaning }
  }

  current(d: number, meaning: string): boolean {
    return this.head(d).meaning === meaning
  }

  /** Stale while its basis or a claim is pinned to what a decision no longer means. */
  reportStale(r: ModelReport): boolean {
    return (
      [...r.basis].some(([d, b]) => !this.current(d, b.meaning)) ||
      r.claims.some((c) => [...c.pins].some(([d, m]) => !this.current(d, m)))
    )
  }

  addDecision(id: string, statement: string): void {
    const text = normativeText(statement, 'accepted')
    this.decisions.push({ id, versions: [{ statement, status: 'accepted', editorial: false, text, meaning: text }] })
  }

  addTask(id: string, spec: (typeof TASKS)[number]): void {
    const links = new Map(spec.deps.map((d) => [d, this.pin(d)]))
    this.tasks.push({
      id,
      assignee: spec.assignee,
      required: spec.required,
      status: 'todo',
      flag: null,
      artifact: null,
      links,
    })
  }

  /** Applies an edit; returns the refusal code or the impact it must report. */
  edit(
    d: number,
    statement: string | undefined,
    status: DecisionStatus | undefined,
    editorial: boolean,
  ): string | ExpectedImpact {
    const before = this.head(d)
    const next = { statement: statement ?? before.statement, status: status ?? before.status }
    if (next.statement === before.statement && next.status === before.status) return 'invalid_params'
    const versions = this.decisions[d]!.versions
    const text = normativeText(next.statement, next.status)
    // Reverting to content seen before brings back what that content meant, so evidence pinned to it is current again.
    const meaning = editorial ? before.meaning : (versions.findLast((v) => v.text === text)?.meaning ?? text)
    versions.push({ ...next, editorial, text, meaning })
    if (meaning === before.meaning) return { normative: false, tasks: [], reports: [], notifiedMemberIds: [] }

    const notices = new Map<number, ExpectedNotice>()
    const notice = (member: number) =>
      notices.get(member) ?? notices.set(member, { member, taskIds: [], reportIds: [] }).get(member)!
    const tasks: ExpectedImpact['tasks'] = []
    for (const t of this.tasks) {
      const link = t.links.get(d)
      if (!link || link.meaning === meaning || t.status === 'cancelled') continue
      const was = t.status
      t.flag = stronger(FLAG_OF[was], t.flag)
      if (was === 'accepted') t.status = 'delivered'
      const assigneeId = t.assignee === null ? null : this.members[t.assignee]!
      tasks.push({ taskId: t.id, status: t.status, flag: t.flag, assigneeId, acceptanceRevoked: was === 'accepted' })
      // A todo task's assignee reads the new requirement when it starts; the others are told now.
      if (t.assignee !== null && was !== 'todo') notice(t.assignee).taskIds.push(t.id)
    }
    // The reports the edit touches: those based on, or claiming, what the decision meant until now (left behind,
    // their authors told) or what it means again now (restored: a revert).
    const reports: ExpectedImpact['reports'] = []
    for (const r of this.reports) {
      const staleClaimIds = r.claims.filter((c) => c.pins.get(d) === before.meaning).map((c) => c.id)
      const restoredClaimIds = r.claims.filter((c) => c.pins.get(d) === meaning).map((c) => c.id)
      const leaves = r.basis.get(d)?.meaning === before.meaning || staleClaimIds.length > 0
      if (!leaves && r.basis.get(d)?.meaning !== meaning && restoredClaimIds.length === 0) continue
      reports.push({
        reportId: r.id,
        taskId: this.tasks[r.task]!.id,
        authorId: this.members[r.author]!,
        staleClaimIds,
        restoredClaimIds,
        validity: this.reportStale(r) ? 'stale' : 'valid',
      })
      if (leaves) notice(r.author).reportIds.push(r.id)
    }
    this.notices.push(...notices.values())
    return {
      normative: true,
      tasks,
      reports,
      notifiedMemberIds: byKey([...notices.keys()].map((m) => this.members[m]!)),
    }
  }

  setStatus(t: number, status: TaskStatus, artifact: string | undefined): string | null {
    const task = this.tasks[t]
    if (status === 'accepted') return 'invalid_transition' // acceptance checks the evidence: tasks.accept
    if (artifact !== undefined && status !== 'delivered') return 'invalid_params'
    if (!canMove(task!.status, status)) return 'invalid_transition' // the shared table, enforced by the core
    if (status === 'delivered' && artifact === undefined && task!.artifact === null) return 'invalid_params'
    task!.status = status
    if (artifact !== undefined) task!.artifact = artifact
    return null
  }

  acknowledge(t: number): void {
    const task = this.tasks[t]
    for (const d of task!.links.keys()) task!.links.set(d, this.pin(d))
    const owed = task!.flag === 'needs_reverification' && (task!.status === 'delivered' || task!.status === 'accepted')
    if (!owed) task!.flag = null
  }

  report(
    t: number,
    author: number,
    kind: Kind,
    verdict: Verdict,
    commit: string,
    claimDecisions: number[],
    basisBack: boolean,
    ids: { id: string; claimIds: string[] },
  ): void {
    const basis = new Map<number, Pin>()
    for (const d of this.tasks[t]!.links.keys()) {
      const version = basisBack
        ? Math.max(1, this.decisions[d]!.versions.length - 1)
        : this.decisions[d]!.versions.length
      basis.set(d, { version, meaning: this.decisions[d]!.versions[version - 1]!.meaning })
    }
    // A claim exercises each decision as the report's basis read it (the current content if the basis does not name it).
    const pins = new Map(claimDecisions.map((d) => [d, basis.get(d)?.meaning ?? this.head(d).meaning]))
    this.reports.push({
      id: ids.id,
      task: t,
      author,
      kind,
      verdict,
      commit,
      basis,
      claims: [
        { id: ids.claimIds[0]!, pins },
        { id: ids.claimIds[1]!, pins: new Map() },
      ],
    })
  }

  /** null when acceptance must succeed; otherwise the code and its reasons (code, report): one per problem found. */
  accept(t: number): null | { code: string; reasons?: Reason[] } {
    const task = this.tasks[t]
    if (task!.status === 'accepted') return null
    if (task!.status !== 'delivered') return { code: 'invalid_transition' }
    const reasons: Reason[] = []
    for (const kind of task!.required) {
      const r = this.reports.filter((x) => x.task === t && x.kind === kind).at(-1)
      if (!r) {
        reasons.push(['evidence_missing', null])
        continue
      }
      if (r.verdict !== 'pass') reasons.push(['evidence_missing', r.id])
      if (r.commit !== task!.artifact) reasons.push(['evidence_stale', r.id])
      for (const d of task!.links.keys()) {
        const b = r.basis.get(d)
        if (!b || !this.current(d, b.meaning)) reasons.push(['evidence_stale', r.id])
      }
      for (const c of r.claims)
        if ([...c.pins].some(([d, m]) => !this.current(d, m))) reasons.push(['evidence_stale', r.id])
    }
    if (reasons.length)
      return { code: reasons.some(([c]) => c === 'evidence_stale') ? 'evidence_stale' : 'evidence_missing', reasons }
    task!.status = 'accepted'
    task!.flag = null
    for (const d of task!.links.keys()) task!.links.set(d, this.pin(d))
    return null
  }

  expectedTasks() {
    return this.tasks.map((t) => ({
      id: t.id,
      status: t.status,
      flag: t.flag,
      artifact: t.artifact,
      links: [...t.links].map(([d, pin]) => ({
        decisionId: this.decisions[d]!.id,
        pinnedVersion: pin.version,
        currentVersion: this.decisions[d]!.versions.length,
        state: this.current(d, pin.meaning) ? 'current' : 'suspect',
      })),
    }))
  }

  expectedReports() {
    return this.reports.map((r) => {
      const basis = [...r.basis].map(([d, b]) => ({
        decisionId: this.decisions[d]!.id,
        version: b.version,
        state: this.current(d, b.meaning) ? 'current' : 'suspect',
      }))
      const claims = r.claims.map((c) => ({
        id: c.id,
        decisionIds: byKey([...c.pins.keys()].map((d) => this.decisions[d]!.id)),
        state: [...c.pins].every(([d, m]) => this.current(d, m)) ? 'valid' : 'stale',
      }))
      const stale = basis.some((b) => b.state === 'suspect') || claims.some((c) => c.state === 'stale')
      return {
        id: r.id,
        taskId: this.tasks[r.task]!.id,
        authorId: this.members[r.author]!,
        kind: r.kind,
        verdict: r.verdict,
        commit: r.commit,
        validity: stale ? 'stale' : 'valid',
        basis,
        claims,
      }
    })
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// What the code under test shows

function shownTask(t: Task) {
  return {
    id: t.id,
    status: t.status,
    flag: t.flag,
    artifact: t.artifact?.commit ?? null,
    links: t.links.map((l) => ({
      decisionId: l.decisionId,
      pinnedVersion: l.pinnedVersion,
      currentVersion: l.currentVersion,
      state: l.state,
    })),
  }
}

function shownReport(r: Report) {
  return {
    id: r.id,
    taskId: r.taskId,
    authorId: r.authorId,
    kind: r.kind,
    verdict: r.verdict,
    commit: r.artifact.commit,
    validity: r.validity,
    basis: r.basis.map((b) => ({ decisionId: b.decisionId, version: b.version, state: b.state })),
    claims: r.claims.map((c) => ({ id: c.id, decisionIds: byKey(c.decisionIds), state: c.state })),
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; details?: unknown }

/** Every call's outcome: a value or the error's stable code (an error without one is reported as such and fails). */
async function attempt<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await p }
  } catch (err) {
    const e = err as { code?: unknown; details?: unknown }
    return {
      ok: false,
      code: typeof e.code === 'string' ? e.code : `error without a code: ${String(err)}`,
      details: e.details,
    }
  }
}
const codeOf = (o: Outcome<unknown>) => (o.ok ? 'ok' : o.code)

function shownImpact(i: Impact) {
  return {
    decisionId: i.decisionId,
    normative: i.normative,
    tasks: i.tasks.map(({ key: _key, ...rest }) => rest),
    reports: i.reports.map(({ key: _key, ...rest }) => rest),
    notifiedMemberIds: byKey(i.notifiedMemberIds),
  }
}

async function expectState(core: Core, wsId: string, m: Model): Promise<void> {
  const decisions = await core.invoke('decisions.list', { workspaceId: wsId })
  expect(decisions.map((d) => [d.id, d.version, d.statement, d.status])).toEqual(
    m.decisions.map((d) => [d.id, d.versions.length, d.versions.at(-1)!.statement, d.versions.at(-1)!.status]),
  )
  expect((await core.invoke('tasks.list', { workspaceId: wsId })).map(shownTask)).toEqual(m.expectedTasks())
  expect((await core.invoke('reports.list', { workspaceId: wsId })).map(shownReport)).toEqual(m.expectedReports())
}

// ---------------------------------------------------------------------------------------------------------------------
// Random operations

type Op =
  | { op: 'edit'; d: number; statement: number | null; status: DecisionStatus | null; editorial: boolean }
  | { op: 'revert'; d: number; back: number; toEditorial: boolean }
  | { op: 'status'; t: number; status: TaskStatus; commit: number | null; stray: boolean }
  | {
      op: 'report'
      t: number
      author: number
      kind: Kind
      verdict: Verdict
      commit: number
      claimMask: number
      basisBack: boolean
    }
  | { op: 'verify'; t: number; claimMask: number }
  | { op: 'accept'; t: number }
  | { op: 'ack'; t: number }

const task = fc.nat(TASKS.length - 1)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('edit' as const),
      d: fc.nat(2),
      statement: fc.option(fc.nat(STATEMENTS.length - 1), { nil: null, freq: 8 }),
      status: fc.constantFrom<DecisionStatus | null>(null, null, null, null, null, 'accepted', 'proposed', 'rejected'),
      editorial: fc.boolean(),
    }),
  },
  // Back to the content of an earlier version, as the history's revert does; often one written by an editorial edit.
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('revert' as const),
      d: fc.nat(2),
      back: fc.nat(3),
      toEditorial: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('status' as const),
      t: task,
      status: fc.constantFrom<TaskStatus>(
        'todo',
        'in_progress',
        'in_progress',
        'delivered',
        'delivered',
        'delivered',
        'delivered',
        'cancelled',
        'accepted',
      ),
      commit: fc.constantFrom(0, 0, 0, 1, null),
      // An artifact on a status other than delivered (refused).
      stray: fc.constantFrom(false, false, false, true),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('report' as const),
      t: task,
      author: fc.nat(MEMBERS - 1),
      kind: fc.constantFrom<Kind>('test', 'review'),
      verdict: fc.constantFrom<Verdict>('pass', 'pass', 'pass', 'pass', 'fail', 'partial'),
      commit: fc.constantFrom(0, 0, 0, 1),
      claimMask: fc.nat(7),
      basisBack: fc.constantFrom(false, false, false, true),
    }),
  },
  // Every report the task requires, passing, on what it delivered: what makes acceptance possible at all.
  { weight: 3, arbitrary: fc.record({ op: fc.constant('verify' as const), t: task, claimMask: fc.nat(7) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('accept' as const), t: task }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('ack' as const), t: task }) },
)

async function step(core: Core, m: Model, op: Op): Promise<void> {
  if (op.op === 'edit' || op.op === 'revert') {
    const d = m.decisions[op.d]
    let earlier: Version | undefined
    if (op.op === 'revert') {
      const differs = d!.versions.filter(
        (v) => v.statement !== m.head(op.d).statement || v.status !== m.head(op.d).status,
      )
      const editorial = differs.filter((v) => v.editorial)
      const pool = op.toEditorial && editorial.length ? editorial : differs
      earlier = pool.length ? pool[op.back % pool.length] : d!.versions[0]
    }
    // An edit names one of the other statements (or none: a status change, or nothing at all, which is refused).
    const others = STATEMENTS.filter((x) => x !== m.head(op.d).statement)
    const statement =
      earlier?.statement ??
      (op.op === 'edit' && op.statement !== null ? others[op.statement % others.length] : undefined)
    const status = earlier?.status ?? (op.op === 'edit' ? (op.status ?? undefined) : undefined)
    const editorial = op.op === 'edit' && op.editorial
    const expectedVersion = d!.versions.length
    const noticesBefore = m.notices.length
    const expected = m.edit(op.d, statement, status, editorial)
    const out = await attempt(
      core.invoke('decisions.update', { decisionId: d!.id, expectedVersion, statement, status, editorial }),
    )
    if (typeof expected === 'string') {
      expect(codeOf(out)).toBe(expected)
      return
    }
    expect(codeOf(out)).toBe('ok')
    if (!out.ok) return
    const { decision, impact } = out.value
    expect([decision.version, decision.statement, decision.status]).toEqual([
      d!.versions.length,
      m.head(op.d).statement,
      m.head(op.d).status,
    ])
    expect(shownImpact(impact)).toEqual({ decisionId: d!.id, ...expected })
    // One notice per affected member, naming its tasks and reports; nobody else is disturbed.
    for (let member = 0; member < MEMBERS; member++) {
      const all = (await core.invoke('notices.list', { memberId: m.members[member]! })).filter(
        (n) => n.decisionId === d!.id,
      )
      const fresh = all.filter((n) => n.decisionVersion === d!.versions.length)
      const want = m.notices.slice(noticesBefore).filter((n) => n.member === member)
      expect(fresh.map((n) => [byKey(n.taskIds), byKey(n.reportIds)])).toEqual(
        want.map((n) => [byKey(n.taskIds), byKey(n.reportIds)]),
      )
    }
  } else if (op.op === 'status') {
    const commit = op.commit === null ? undefined : COMMITS[op.commit]
    const artifact = op.status === 'delivered' || (op.stray && op.status !== 'accepted') ? commit : undefined
    const expected = m.setStatus(op.t, op.status, artifact)
    const out = await attempt(
      core.invoke('tasks.setStatus', {
        taskId: m.tasks[op.t]!.id,
        status: op.status,
        artifact: artifact === undefined ? undefined : { commit: artifact },
      }),
    )
    expect(codeOf(out)).toBe(expected ?? 'ok')
  } else if (op.op === 'report') {
    await submit(core, m, { ...op, commit: COMMITS[op.commit]! })
  } else if (op.op === 'verify') {
    const t = m.tasks[op.t]
    for (const [i, kind] of t!.required.entries()) {
      await submit(core, m, {
        t: op.t,
        author: i % MEMBERS,
        kind,
        verdict: 'pass',
        commit: t!.artifact ?? COMMITS[0]!,
        claimMask: op.claimMask,
        basisBack: false,
      })
    }
  } else if (op.op === 'accept') {
    const expected = m.accept(op.t)
    const out = await attempt(core.invoke('tasks.accept', { taskId: m.tasks[op.t]!.id }))
    expect(codeOf(out)).toBe(expected?.code ?? 'ok')
    if (expected?.reasons && !out.ok) {
      const reasons = (out.details as { reasons: { code: string; reportId: string | null }[] }).reasons
      expect(byKey(reasons.map((r) => `${r.code} ${r.reportId}`))).toEqual(
        byKey(expected.reasons.map(([c, r]) => `${c} ${r}`)),
      )
    }
  } else {
    m.acknowledge(op.t)
    expect(codeOf(await attempt(core.invoke('tasks.acknowledge', { taskId: m.tasks[op.t]!.id })))).toBe('ok')
  }
}

async function submit(
  core: Core,
  m: Model,
  r: Omit<Extract<Op, { op: 'report' }>, 'op' | 'commit'> & { commit: string },
): Promise<void> {
  const t = m.tasks[r.t]
  const claimDecisions = [0, 1, 2].filter((d) => r.claimMask & (1 << d))
  const basis = r.basisBack
    ? [...t!.links.keys()].map((d) => ({
        decisionId: m.decisions[d]!.id,
        version: Math.max(1, m.decisions[d]!.versions.length - 1),
      }))
    : undefined
  const out = await attempt(
    core.invoke('reports.submit', {
      taskId: t!.id,
      authorId: m.members[r.author],
      kind: r.kind,
      verdict: r.verdict,
      artifact: { commit: r.commit },
      basis,
      claims: [
        { text: 'behaves as decided', decisionIds: claimDecisions.map((d) => m.decisions[d]!.id) },
        { text: 'general', decisionIds: [] },
      ],
    }),
  )
  expect(codeOf(out)).toBe('ok')
  if (!out.ok) return
  m.report(r.t, r.author, r.kind, r.verdict, r.commit, claimDecisions, r.basisBack, {
    id: out.value.id,
    claimIds: out.value.claims.map((c) => c.id),
  })
}

// 100 generated runs in all, as four cases of 25: each case's timeout covers a quarter of the work, so a loaded machine
// (two test runs at once) does not time the property out while nothing is wrong; the runs and what they check are the same.
const CASES = 4
const RUNS_PER_CASE = 25

describe('propagation and acceptance against a model of DESIGN §2', () => {
  it.each(Array.from({ length: CASES }, (_, i) => i + 1))(
    'every step leaves exactly the predicted flags, link and claim states, impact, notices and acceptance outcome (%i of 4)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 60, size: 'max' }), async (ops) => {
          const t = makeCore()
          try {
            const core = t.core
            const ws = await core.invoke('workspaces.open', { repoPath: t.repoDir })
            const members: string[] = []
            for (let i = 0; i < MEMBERS; i++)
              members.push(
                (await core.invoke('members.create', { workspaceId: ws.id, name: `M${i}`, role: 'implementer' })).id,
              )
            const m = new Model(members)
            for (let i = 0; i < 3; i++)
              m.addDecision(
                (
                  await core.invoke('decisions.create', {
                    workspaceId: ws.id,
                    title: `D${i}`,
                    statement: STATEMENTS[i]!,
                  })
                ).id,
                STATEMENTS[i]!,
              )
            for (const [i, spec] of TASKS.entries()) {
              const created = await core.invoke('tasks.create', {
                workspaceId: ws.id,
                title: `T${i}`,
                assigneeId: spec.assignee === null ? null : members[spec.assignee],
                decisionIds: spec.deps.map((d) => m.decisions[d]!.id),
                requiredReports: spec.required,
              })
              m.addTask(created.id, spec)
            }
            await expectState(core, ws.id, m)

            for (const op of ops) {
              await step(core, m, op)
              await expectState(core, ws.id, m)
            }

            // Revisions are never lost, and the fingerprints group the versions exactly as the model's contents do.
            for (const d of m.decisions) {
              const history = await core.invoke('decisions.history', { decisionId: d.id })
              expect(history.map((h) => [h.version, h.statement, h.status, h.editorial])).toEqual(
                d.versions.map((v, i) => [i + 1, v.statement, v.status, v.editorial]),
              )
              const sameFingerprint = history.map((a) => history.map((b) => a.fingerprint === b.fingerprint))
              expect(sameFingerprint).toEqual(d.versions.map((a) => d.versions.map((b) => a.meaning === b.meaning)))
            }
          } finally {
            await t.cleanup()
          }
        }),
        { numRuns: RUNS_PER_CASE },
      )
    },
    300_000,
  )
})
