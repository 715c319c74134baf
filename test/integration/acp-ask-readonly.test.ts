/**
 * The policy `ask` for an agent that never asks (issue 35: opencode ran commands under `ask` without a question).
 * Concord cannot make such an agent ask, so under `ask` a custom agent works in a read-only tree (the OS sandbox
 * enforces it) and its session says so; choosing `auto` (or `sandboxed`) lets it write. Real bubblewrap, a real agent
 * process (the scripted ACP agent writes without asking).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member } from '../../shared/schemas'
import { askThroughSandbox } from '../../electron/main/runtime/acp/acp-turn'
import type { MemberRow } from '../../electron/main/store/members-repo'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSandbox()

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const opencode = (): Promise<Member> =>
  t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Opencode',
    role: 'implementer',
    approval: 'ask',
    provider: scriptedProvider({ turn: [{ write: 'made.txt' }] }),
  })

const turn = (m: Member, text: string) => takeTurn(t.core, { memberId: m.id, text }, { timeoutMs: 30_000 })
const said = (steps: { kind: string; text: string | null }[]) =>
  steps
    .filter((s) => s.kind === 'model')
    .map((s) => s.text)
    .join('')

describe('ask, for an agent that never asks', () => {
  it('keeps its tree read-only and says why; auto lets it write', async () => {
    const m = await opencode()
    const first = await turn(m, 'Make a file')
    expect(said(first)).toMatch(/could not write made\.txt: (EROFS|EACCES|EPERM)/)
    expect(existsSync(join(t.repoDir, 'made.txt'))).toBe(false)
    const notice = first.find((s) => s.kind === 'notice' && (s.text ?? '').includes('read-only tree'))
    expect(notice?.text).toContain('choose sandboxed or auto')

    await t.core.invoke('members.update', { memberId: m.id, approval: 'auto' })
    const second = await turn(m, 'Make it now')
    expect(said(second)).toContain('wrote made.txt')
    expect(existsSync(join(t.repoDir, 'made.txt'))).toBe(true)
  })

  it('applies to agents not known to ask, under ask only', () => {
    const row = (agent: MemberRow['agent']) => ({ agent }) as MemberRow
    const policy = { dataDir: '/d' }
    expect(askThroughSandbox(policy, row('custom'), 'ask').readOnlyTree).toBeTruthy()
    for (const agent of ['claude-code', 'codex', 'gemini'] as const)
      expect(askThroughSandbox(policy, row(agent), 'ask')).toBe(policy)
    expect(askThroughSandbox(policy, row('custom'), 'sandboxed')).toBe(policy)
    expect(askThroughSandbox(policy, row('custom'), 'auto')).toBe(policy)
  })
})
