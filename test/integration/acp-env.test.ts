/**
 * An ACP member's `env.PATH` reaches only the agent inside its sandbox: Concord's launcher (bubblewrap, the agent's
 * program, Node) is never looked up on it. The real Claude Code adapter from node_modules, the scripted model server
 * offline, real bubblewrap.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Member, Workspace } from '../../shared/schemas'
import { type ModelServer } from '../fixtures/model-server'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let server: ModelServer
let ws: Workspace
let planted: string
let marker: string

fileNeedsSandbox()

beforeEach(async () => {
  t = await workspaceWithTeam({ isolation: 'worktree' })
  ;({ server, ws } = t)
  // Outside /tmp, so that the sandbox's private /tmp is not what keeps the marker from being written.
  const dir = mkdtempSync('/var/tmp/concord-acp-env-')
  planted = join(dir, 'bin')
  marker = join(dir, 'planted-ran')
  mkdirSync(planted)
  for (const name of ['bwrap', 'node', 'claude-agent-acp', 'env']) {
    writeFileSync(join(planted, name), `#!/bin/sh\necho "${name} $*" >> ${marker}\nexit 1\n`)
    chmodSync(join(planted, name), 0o755)
  }
})
afterEach(async () => {
  await t.cleanup()
  rmSync(join(planted, '..'), { recursive: true, force: true })
})

function claude(env: Record<string, string>): Promise<Member> {
  return t.core.invoke('members.create', {
    workspaceId: ws.id,
    name: 'Claude',
    role: 'implementer',
    approval: 'auto',
    provider: {
      kind: 'acp',
      agent: 'claude-code',
      apiKey: 'sk-ant-any',
      isolatedHome: true,
      env: {
        ANTHROPIC_BASE_URL: server.url,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        IS_SANDBOX: '1',
        ...env,
      },
    },
  })
}

describe("an ACP member's env.PATH", () => {
  it("does not replace Concord's launcher: the real adapter answers, the planted programs never run", async () => {
    const m = await claude({ PATH: `${planted}:${process.env.PATH}` })
    server.enqueue({ text: 'Answer from the real adapter.' })
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'Say something' }, { timeoutMs: 60_000 })
    expect(steps.find((s) => s.kind === 'model')).toMatchObject({
      status: 'done',
      text: 'Answer from the real adapter.',
    })
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('')
  }, 90_000)
})
