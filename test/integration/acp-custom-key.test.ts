/**
 * A custom ACP agent's key (issue 35): the member names the variable its key goes in; the key stays in the secret
 * store, reaches that variable of the agent's process (a real process Concord starts: the scripted ACP agent), and is
 * never returned by the API. Arguments that carry a secret are refused like variables are.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { takeTurn } from '../fixtures/sessions'
import { scriptedProvider } from '../fixtures/scripted-agent'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
beforeEach(async () => {
  t = await workspaceWithTeam()
})
afterEach(() => t.cleanup())

const KEY = 'sk-scripted-0123456789abcdef'
const sha = (v: string) => createHash('sha256').update(v).digest('hex')

/** The command lines of this machine's processes that run the scripted agent (its launcher included). */
function agentCommandLines(): string[] {
  const lines: string[] = []
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
      if (line.includes('scripted-acp-agent.mjs')) lines.push(line)
    } catch {
      // gone meanwhile
    }
  }
  return lines
}

const create = (provider: Record<string, unknown>) =>
  t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Qwen',
    role: 'implementer',
    approval: 'auto',
    provider: provider as never,
  })

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => ({ code: (e as { code: string }).code, message: (e as Error).message }),
  )

describe("a custom ACP agent's key", () => {
  it('reaches the variable the member names, in the agent process only; the API never returns it', async () => {
    const m = await create({
      ...scriptedProvider({ turn: [{ sayEnv: 'OPENAI_API_KEY' }, { sayEnv: 'ANTHROPIC_API_KEY' }] }),
      keyVariable: 'OPENAI_API_KEY',
      apiKey: KEY,
    })
    expect(m.provider).toMatchObject({ kind: 'acp', agent: 'custom', keyVariable: 'OPENAI_API_KEY', hasKey: true })
    const steps = await takeTurn(t.core, { memberId: m.id, text: 'Which key do you have?' }, { timeoutMs: 30_000 })
    const said = steps
      .filter((s) => s.kind === 'model')
      .map((s) => s.text)
      .join('')
    expect(said).toContain(`OPENAI_API_KEY=${sha(KEY)}`)
    expect(said).toContain('ANTHROPIC_API_KEY unset')
    // The agent is kept for the next turn: neither it nor its sandbox's launcher has the key on its command line.
    const lines = agentCommandLines()
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(line).not.toContain(KEY)

    const listed = await t.core.invoke('members.list', { workspaceId: t.ws.id })
    const session = await t.core.invoke('sessions.get', { memberId: m.id })
    for (const answer of [m, listed, session]) expect(JSON.stringify(answer)).not.toContain(KEY)
  })

  it('refuses a key variable that is not a variable name, is Concord’s own, or does not look like a key', async () => {
    for (const keyVariable of ['OPENAI API KEY', '1KEY', 'CONCORD_MCP_TOKEN', 'MODEL_NAME']) {
      const r = await refusal(create({ ...scriptedProvider({ turn: [] }), keyVariable, apiKey: KEY }))
      expect(r?.code, keyVariable).toBe('invalid_params')
      expect(r?.message, keyVariable).toContain('provider.keyVariable')
    }
  })

  it('refuses arguments that carry a secret, as variables are (a key in args would be returned by the API)', async () => {
    for (const args of [
      ['--api-key', 'abc123'],
      ['--token=abc123'],
      ['OPENAI_API_KEY=whatever'],
      ['--model', KEY],
      ['--endpoint', 'https://user:hunter2@example.test/v1'],
    ]) {
      const r = await refusal(create({ kind: 'acp', agent: 'custom', command: process.execPath, args }))
      expect(r?.code, args.join(' ')).toBe('invalid_params')
      expect(r?.message, args.join(' ')).toContain('provider.args')
      expect(r?.message, args.join(' ')).not.toContain('hunter2')
    }
    // What is not a secret still passes: flags, values, a config whose value names a variable.
    const ok = await create({
      kind: 'acp',
      agent: 'custom',
      command: process.execPath,
      args: ['--acp', '--model', 'qwen3-coder', '-c', 'model_providers.local={env_key="OPENAI_API_KEY"}', '--no-auth'],
    })
    expect(ok.provider).toMatchObject({ args: expect.arrayContaining(['qwen3-coder']) })
  })
})
