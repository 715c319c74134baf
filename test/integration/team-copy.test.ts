/**
 * "Use the team of <workspace>" (issue 31): a second repository gets the members of another workspace, their
 * providers (keys referenced in the secret store, never copied into a file or an export), their approval policies
 * and rules, in one transaction: a name already there refuses the whole copy with name_taken, and a failure half-way
 * leaves nothing behind. On a real core, real SQLite files, real git repositories and the wire-format model server.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createCore } from '../../electron/main/core'
import { secretRef } from '../../electron/main/harness/members/members'
import type { EventEnvelope } from '../../shared/contract'
import type { ApprovalRule, Member, Workspace } from '../../shared/schemas'
import { initRepo, rejectsWith } from '../fixtures/core'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
/** Workspace A, whose team is copied: Lead, Impl, Tester, an external agent, an archived member; rules. */
let a: Workspace
let team: Record<string, Member>
/** A second repository, just opened: no members. */
let b: Workspace

const KEY_LEAD = 'sk-lead-only-once'
const KEY_IMPL = 'sk-impl-only-once'

beforeEach(async () => {
  t = await workspaceWithTeam()
  a = t.ws
  const compatible = { kind: 'openai-compatible' as const, model: 'local-model', baseURL: t.server.openaiBaseURL }
  team = {
    Lead: await t.member('Lead', {
      authority: 'decider',
      instructions: 'Plan the work.',
      approval: 'ask',
      provider: { ...compatible, apiKey: KEY_LEAD },
    }),
    Impl: await t.member('Impl', {
      provider: { ...compatible, apiKey: KEY_IMPL, interruptOnAdjustment: true },
      maxSteps: 12,
      planningInterval: 3,
      network: true,
    }),
    // No key: a local model needs none, and the copy has none either.
    Tester: await t.member('Tester', { provider: compatible, approval: 'sandboxed' }),
    Agent: await t.member('Agent', {
      provider: {
        kind: 'acp',
        agent: 'custom',
        command: '/usr/local/bin/my-agent',
        args: ['--acp'],
        env: { AGENT_MODE: 'quiet' },
        isolatedHome: true,
        turnTimeoutSeconds: 120,
      },
    }),
    Old: await t.member('Old'),
  }
  await t.core.invoke('members.archive', { memberId: team.Old!.id })
  const rule = (memberId: string | null, r: Record<string, string>) =>
    t.core.invoke('approvalRules.add', { workspaceId: a.id, memberId, rule: { effect: 'allow', ...r } })
  await rule(null, { tool: 'run_command', commandPrefix: 'npm test' })
  await rule(team.Impl!.id, { effect: 'deny', tool: 'write_file', pathGlob: 'secrets/**' })
  await rule(team.Old!.id, { tool: 'run_command', commandPrefix: 'make' })

  const repoB = join(dirname(t.repoDir), 'repo-b')
  mkdirSync(repoB)
  initRepo(repoB)
  b = await t.core.invoke('workspaces.open', { repoPath: repoB, name: 'second', isolation: 'shared' })
})
afterEach(async () => {
  vi.restoreAllMocks()
  await t.cleanup()
})

const copy = () => t.core.invoke('members.copyTeam', { workspaceId: b.id, fromWorkspaceId: a.id })
const listB = () => t.core.invoke('members.list', { workspaceId: b.id })
const byName = (members: Member[]) => Object.fromEntries(members.map((m) => [m.name, m]))
/** What a member is, without what makes it this workspace's. */
const shape = ({ id: _id, workspaceId: _ws, createdAt: _c, updatedAt: _u, ...rest }: Member) => rest
/** A rule by what it says and whom it is for (by name: ids differ between workspaces). */
const ruleShape = (r: ApprovalRule, names: Record<string, string>) => ({
  for: r.memberId === null ? 'team' : names[r.memberId],
  effect: r.effect,
  tool: r.tool,
  commandPrefix: r.commandPrefix,
  pathGlob: r.pathGlob,
})
const secretsFile = () => readFileSync(join(t.dataDir, 'secrets.json'), 'utf8')
const count = (text: string, part: string) => text.split(part).length - 1

/** Every file under a folder, as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? filesUnder(p) : [readFileSync(p, 'utf8')]
  })
}

describe('Use the team of another workspace', () => {
  it('offers the teams of the other workspaces, then copies members, providers, policies and rules', async () => {
    const sources = await t.core.invoke('members.teams', { workspaceId: b.id })
    expect(sources).toEqual([
      {
        workspaceId: a.id,
        name: a.name,
        members: [
          { name: 'Lead', role: 'lead', provider: 'openai-compatible · local-model' },
          { name: 'Impl', role: 'impl', provider: 'openai-compatible · local-model' },
          { name: 'Tester', role: 'tester', provider: 'openai-compatible · local-model' },
          { name: 'Agent', role: 'agent', provider: 'custom' },
        ],
        // The team's rule and Impl's; not the archived member's.
        rules: 2,
      },
    ])
    // A workspace without members is nothing to copy; a workspace does not offer its own team.
    expect(await t.core.invoke('members.teams', { workspaceId: a.id })).toEqual([])

    const events: EventEnvelope[] = []
    t.core.bus.on((e) => events.push(e))
    const copied = await copy()
    const names = ['Lead', 'Impl', 'Tester', 'Agent']
    expect(copied.members.map((m) => m.name)).toEqual(names)
    const inB = byName(await listB())
    expect(Object.keys(inB)).toEqual(names)
    for (const name of names) {
      expect(inB[name]!.workspaceId).toBe(b.id)
      expect(shape(inB[name]!)).toEqual(shape(team[name]!))
    }
    expect(inB.Lead!.provider).toMatchObject({ kind: 'openai-compatible', hasKey: true })
    expect(inB.Tester!.provider?.hasKey).toBe(false)
    expect(inB.Agent!.provider).toMatchObject({
      kind: 'acp',
      command: '/usr/local/bin/my-agent',
      args: ['--acp'],
      env: { AGENT_MODE: 'quiet' },
      isolatedHome: true,
      turnTimeoutSeconds: 120,
    })
    expect(events.filter((e) => e.event === 'member.changed')).toHaveLength(4)

    const namesOf = (members: Member[]) => Object.fromEntries(members.map((m) => [m.id, m.name]))
    const rulesB = await t.core.invoke('approvalRules.list', { workspaceId: b.id })
    expect(rulesB.map((r) => ruleShape(r, namesOf(Object.values(inB))))).toEqual([
      { for: 'team', effect: 'allow', tool: 'run_command', commandPrefix: 'npm test', pathGlob: null },
      { for: 'Impl', effect: 'deny', tool: 'write_file', commandPrefix: null, pathGlob: 'secrets/**' },
    ])
    expect(copied.rules.map((r) => r.id)).toEqual(rulesB.map((r) => r.id))

    // The copy's rules hold in its turns: Impl's deny refuses a write under secrets/ in the second repository.
    t.server.enqueue(
      // Its planning interval came along: the turn opens with a plan.
      { text: 'Plan: write the token file.' },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'secrets/token.txt', content: 'x' } }] },
      { text: 'Refused, as the rule says.' },
    )
    await takeTurn(t.core, { memberId: inB.Impl!.id, text: 'Write the token file.' })
    const told = (t.server.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter(
      (m) => m.role === 'tool',
    )
    expect(told.at(-1)?.content).toContain('refused by the rule "deny write_file in secrets/**"')
    expect(readdirSync(b.repoPath)).not.toContain('secrets')
  })

  it('refers to the keys in the secret store and never copies them into a file or an export', async () => {
    const before = secretsFile()
    expect(count(before, KEY_LEAD)).toBe(1)
    const { members } = await copy()
    const lead = byName(members).Lead!
    // The secrets file did not change: no key was written, under the copy's name or any other.
    expect(secretsFile()).toBe(before)
    expect(t.core.harness.secrets.has(secretRef(lead.id))).toBe(false)

    // A turn of the copied Lead goes out with the key the original holds.
    t.server.enqueue({ text: 'Here, with the copied provider.' })
    const steps = await takeTurn(t.core, { memberId: lead.id, text: 'Are you there?' })
    expect(steps.at(-1)).toMatchObject({ kind: 'model', text: 'Here, with the copied provider.' })
    expect(t.server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY_LEAD}`)

    // Neither the export of the second workspace nor any workspace file holds a key.
    const out = join(dirname(t.repoDir), 'export-b')
    await t.core.invoke('export.decisionLog', { workspaceId: b.id, format: 'json', outDir: out })
    const exported = filesUnder(out).join('\n')
    expect(exported).toContain('"Lead"')
    for (const text of [exported, ...filesUnder(join(t.dataDir, 'workspaces')).map(String)])
      for (const key of [KEY_LEAD, KEY_IMPL]) expect(text).not.toContain(key)

    // One key, referred to twice: a new key given to the original is the copy's too…
    await t.core.invoke('members.update', {
      memberId: team.Lead!.id,
      provider: { kind: 'openai-compatible', model: 'local-model', baseURL: t.server.openaiBaseURL, apiKey: 'sk-rot' },
    })
    t.server.enqueue({ text: 'Still here.' })
    await takeTurn(t.core, { memberId: lead.id, text: 'And now?' })
    expect(t.server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-rot')
    // …until the copy is given a key of its own, which the original does not get.
    await t.core.invoke('members.update', {
      memberId: lead.id,
      provider: { kind: 'openai-compatible', model: 'local-model', baseURL: t.server.openaiBaseURL, apiKey: 'sk-b' },
    })
    expect(t.core.harness.secrets.get(secretRef(lead.id))).toBe('sk-b')
    expect(t.core.harness.secrets.get(secretRef(team.Lead!.id))).toBe('sk-rot')
    t.server.enqueue({ text: 'Own key.' })
    await takeTurn(t.core, { memberId: lead.id, text: 'Own key?' })
    expect(t.server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-b')
    // Forgetting the copy's provider forgets its key, and the original keeps its own.
    const forgot = await t.core.invoke('members.update', { memberId: byName(members).Impl!.id, provider: null })
    expect(forgot.provider).toBeNull()
    const impl = await t.core.invoke('members.update', {
      memberId: forgot.id,
      provider: { kind: 'openai-compatible', model: 'local-model', baseURL: t.server.openaiBaseURL },
    })
    expect(impl.provider?.hasKey).toBe(false)
    expect(t.core.harness.secrets.get(secretRef(team.Impl!.id))).toBe(KEY_IMPL)
  })

  it('refuses a name already in the workspace with name_taken, and copies nothing', async () => {
    const mine = await t.core.invoke('members.create', { workspaceId: b.id, name: ' tester ', role: 'qa' })
    await t.core.invoke('approvalRules.add', {
      workspaceId: b.id,
      memberId: null,
      rule: { effect: 'allow', tool: 'run_command', commandPrefix: 'npm test' },
    })
    const secrets = secretsFile()
    const rulesBefore = await t.core.invoke('approvalRules.list', { workspaceId: b.id })
    const events: EventEnvelope[] = []
    t.core.bus.on((e) => events.push(e))

    const err = await rejectsWith(copy(), 'name_taken')
    expect(err.message).toContain('"tester"')
    expect(err.message).toContain('Nothing was copied')
    expect(err.details).toEqual({ names: ['Tester'] })
    expect((await listB()).map((m) => m.id)).toEqual([mine.id])
    expect(await t.core.invoke('approvalRules.list', { workspaceId: b.id })).toEqual(rulesBefore)
    expect(secretsFile()).toBe(secrets)
    expect(events.filter((e) => e.event === 'member.changed')).toEqual([])

    // An archived member's name is taken too (restoring it would make two members answer to one name).
    await t.core.invoke('members.update', { memberId: mine.id, name: 'QA' })
    await t.core.invoke('members.archive', { memberId: mine.id })
    await t.core.invoke('members.create', { workspaceId: b.id, name: 'Agent', role: 'agent' })
    await t.core.invoke('members.archive', {
      memberId: (await t.core.invoke('members.create', { workspaceId: b.id, name: 'LEAD', role: 'x' })).id,
    })
    const again = await rejectsWith(copy(), 'name_taken')
    expect(again.message).toContain('"LEAD" (archived), "Agent"')
    expect((await listB()).map((m) => m.name)).toEqual(['Agent'])
  })

  it('leaves nothing half-copied when the copy fails after some members were written', async () => {
    // The third rule written fails (after every member and the first rules are in): one transaction, so none stays.
    t.core.harness
      .ctx(b.id)
      .store.db.exec(
        `CREATE TEMP TRIGGER fail_rule AFTER INSERT ON main.approval_rules WHEN NEW.path_glob IS NOT NULL BEGIN SELECT RAISE(ABORT, 'disk went away'); END;`,
      )
    await expect(copy()).rejects.toThrow()
    expect(await listB()).toEqual([])
    expect(await t.core.invoke('approvalRules.list', { workspaceId: b.id })).toEqual([])
    t.core.harness.ctx(b.id).store.db.exec('DROP TRIGGER temp.fail_rule')
    // Copied once it can be, and a second copy of the same team clashes on every name.
    expect((await copy()).members).toHaveLength(4)
    const err = await rejectsWith(copy(), 'name_taken')
    expect(err.details).toEqual({ names: ['Lead', 'Impl', 'Tester', 'Agent'] })
    expect(await listB()).toHaveLength(4)
  })

  it('still offers the readable teams when the file of another workspace is damaged', async () => {
    const repoC = join(dirname(t.repoDir), 'repo-c')
    mkdirSync(repoC)
    const c = await t.core.invoke('workspaces.open', { repoPath: repoC, name: 'damaged' })
    await t.core.invoke('members.create', { workspaceId: c.id, name: 'Solo', role: 'solo' })
    await t.core.close()
    writeFileSync(join(t.dataDir, 'workspaces', `${c.id}.sqlite`), 'not a database, '.repeat(512))
    t.core = createCore({ dataDir: t.dataDir, taskStartTurns: false })
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const sources = await t.core.invoke('members.teams', { workspaceId: b.id })
    expect(sources.map((s) => s.name)).toEqual([a.name])
    expect(warned.mock.calls.join(' ')).toContain(`the team of workspace ${c.id} is not offered`)
    // Copying from it says why it cannot.
    await rejectsWith(
      t.core.invoke('members.copyTeam', { workspaceId: b.id, fromWorkspaceId: c.id }),
      'storage_corrupt',
    )
  })

  it('says which workspace it cannot copy from', async () => {
    await rejectsWith(t.core.invoke('members.copyTeam', { workspaceId: a.id, fromWorkspaceId: a.id }), 'invalid_params')
    const empty = await rejectsWith(
      t.core.invoke('members.copyTeam', { workspaceId: a.id, fromWorkspaceId: b.id }),
      'invalid_params',
    )
    expect(empty.message).toContain('"second" has no members to copy')
    await rejectsWith(
      t.core.invoke('members.copyTeam', { workspaceId: b.id, fromWorkspaceId: 'w00000000' }),
      'not_found',
    )
  })
})
