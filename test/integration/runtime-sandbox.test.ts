/**
 * The runtime hands each member's commands its policy (scratch home, the workspace's variables, network only when
 * allowed, the data folder hidden) and, after a crash, kills the command process groups left behind before it marks
 * their turns interrupted.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import { processStartTime } from '../../electron/main/platform/process-records'
import type { Member, Step, Workspace } from '../../shared/schemas'
import { rejectsWith } from '../fixtures/core'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'
import { type ModelServer } from '../fixtures/model-server'
import { needsSandbox } from '../fixtures/sandbox-gate'

let t: Team
let server: ModelServer
let ws: Workspace

beforeEach(async () => {
  t = await workspaceWithTeam({
    core: { provider: { maxRetries: 0 } },
    memberDefaults: () => ({
      role: 'implementer',
      authority: 'decider',
      provider: { kind: 'openai', model: 'gpt-test', baseURL: server.openaiBaseURL, apiKey: 'sk-member-key-123' },
    }),
  })
  ;({ server, ws } = t)
})
afterEach(() => t.cleanup())

function member(name: string, extra?: Record<string, unknown>): Promise<Member> {
  return t.member(name, extra)
}

async function runCommand(m: Member, command: string): Promise<Step> {
  server.enqueue({ toolCalls: [{ name: 'run_command', arguments: { command } }] }, { text: 'ran it' })
  const steps = await takeTurn(t.core, { memberId: m.id, text: `run ${command}` })
  return steps.filter((s) => s.kind === 'tool').at(-1)!
}

describe('workspace settings', () => {
  it('stores command variables and git hooks, and refuses secret-looking names with nothing saved', async () => {
    expect(await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).toMatchObject({
      commandEnv: {},
      gitHooks: false,
    })
    await t.core.invoke('workspaces.update', { workspaceId: ws.id, commandEnv: { NODE_ENV: 'test' }, gitHooks: true })
    const bad = await rejectsWith(
      t.core.invoke('workspaces.update', { workspaceId: ws.id, commandEnv: { OPENAI_API_KEY: 'sk-x' } }),
      'invalid_params',
    )
    expect(bad.message).toContain('OPENAI_API_KEY')
    await rejectsWith(
      t.core.invoke('workspaces.update', { workspaceId: ws.id, commandEnv: { CONCORD_TOKEN: 'x' } }),
      'invalid_params',
    )
    await rejectsWith(
      t.core.invoke('workspaces.update', { workspaceId: ws.id, commandEnv: { HOME: '/root' } }),
      'invalid_params',
    )
    expect(await t.core.invoke('workspaces.settings', { workspaceId: ws.id })).toMatchObject({
      commandEnv: { NODE_ENV: 'test' },
      gitHooks: true,
    })
  })

  it('refuses variables that make programs run other code, for commands and for an ACP member, naming the variable', async () => {
    for (const name of [
      'LD_PRELOAD',
      'NODE_OPTIONS',
      'BASH_ENV',
      'GIT_SSH_COMMAND',
      'GIT_CONFIG_GLOBAL',
      'DATABASE_URL',
      'SSH_AUTH_SOCK',
      'DEPLOY_KEY',
    ]) {
      const bad = await rejectsWith(
        t.core.invoke('workspaces.update', { workspaceId: ws.id, commandEnv: { [name]: '/x' } }),
        'invalid_params',
      )
      expect(bad.message).toContain(name)
      const agent = await rejectsWith(
        t.core.invoke('members.create', {
          workspaceId: ws.id,
          name: `A-${name}`,
          role: 'implementer',
          provider: { kind: 'acp', agent: 'claude-code', env: { [name]: '/x' } },
        }),
        'invalid_params',
      )
      expect(agent.message).toContain(`provider.env: ${name}`)
    }
    expect(
      (await t.core.invoke('members.list', { workspaceId: ws.id })).filter((m) => m.name.startsWith('A-')),
    ).toEqual([])
    // A relative PATH entry is kept: inside the sandbox it names the tree's folder (sandbox-env.test.ts).
    await t.core.invoke('workspaces.update', {
      workspaceId: ws.id,
      commandEnv: { PATH: 'node_modules/.bin:/usr/bin:/bin' },
    })
  })

  it("refuses an agent's variable that carries the member's approval policy to it (opencode's permissions, Copilot's allow-all)", async () => {
    const input = (env: Record<string, string>) => ({
      workspaceId: ws.id,
      name: 'Open',
      role: 'implementer' as const,
      approval: 'ask' as const,
      provider: { kind: 'acp' as const, agent: 'opencode' as const, env },
    })
    const bad = await rejectsWith(
      t.core.invoke('members.create', input({ OPENCODE_PERMISSION: '{"bash":"allow"}' })),
      'invalid_params',
    )
    expect(bad.message).toContain('provider.env: OPENCODE_PERMISSION')
    const open = await t.core.invoke('members.create', input({ OPENCODE_DISABLE_LSP_DOWNLOAD: '1' }))
    const edit = rejectsWith(
      t.core.invoke('members.update', {
        memberId: open.id,
        provider: { kind: 'acp', agent: 'opencode', env: { OPENCODE_PERMISSION: '{}' } },
      }),
      'invalid_params',
    )
    expect((await edit).message).toContain('OPENCODE_PERMISSION')
    const copilot = await rejectsWith(
      t.core.invoke('members.create', {
        ...input({}),
        name: 'Pilot',
        provider: { kind: 'acp', agent: 'copilot', env: { COPILOT_ALLOW_ALL: 'true' } },
      }),
      'invalid_params',
    )
    expect(copilot.message).toContain('provider.env: COPILOT_ALLOW_ALL')
    // Another agent has no such variable of Concord's: the name is the user's to set.
    await t.core.invoke('members.create', {
      ...input({ OPENCODE_PERMISSION: '{}' }),
      name: 'Other',
      provider: { kind: 'acp', agent: 'custom', command: 'x', env: { OPENCODE_PERMISSION: '{}' } },
    })
  })
})

describe('a shared workspace (the tree is the user’s checkout)', () => {
  async function turn(m: Member, calls: { name: string; arguments: Record<string, unknown> }[]): Promise<Step[]> {
    server.enqueue({ toolCalls: calls }, { text: 'done' })
    return (await takeTurn(t.core, { memberId: m.id, text: 'go' })).filter((s) => s.kind === 'tool')
  }

  it('keeps .git read-only for commands (no hook, no core.fsmonitor, no move), and git_commit still commits', async (ctx) => {
    await needsSandbox(ctx)
    const m = await member('Impl')
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: t.repoDir, encoding: 'utf8' }).trim()
    const head = git('rev-parse', 'HEAD')
    const attack =
      `printf '#!/bin/sh\ntouch hook-ran\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && echo hook=planted; ` +
      `git config core.fsmonitor "touch fsmonitor-ran" && echo fsmonitor=planted; echo '[core]' >> .git/config && echo config=planted; ` +
      `mv .git .git-moved && echo moved=yes; echo end`
    const [step] = await turn(m, [{ name: 'run_command', arguments: { command: attack } }])
    expect(step!.text).toContain('end')
    expect(step!.text).not.toMatch(/=planted|moved=yes/)
    expect(existsSync(join(t.repoDir, '.git', 'hooks', 'post-checkout'))).toBe(false)
    expect(existsSync(join(t.repoDir, '.git-moved'))).toBe(false)
    expect(
      spawnSync('git', ['config', '--get', 'core.fsmonitor'], { cwd: t.repoDir, encoding: 'utf8' }).stdout.trim(),
    ).toBe('')
    // The user's own git, afterwards, runs nothing planted.
    git('status')
    expect(existsSync(join(t.repoDir, 'fsmonitor-ran'))).toBe(false)
    // Concord's own commit writes the git folder, for that call only.
    const steps = await turn(m, [
      { name: 'write_file', arguments: { path: 'feature.txt', content: 'from the member\n' } },
      { name: 'git_commit', arguments: { message: 'member commit' } },
    ])
    expect(steps.at(-1)!.text).not.toMatch(/error|refused/i)
    expect(git('log', '-1', '--format=%s')).toBe('member commit')
    expect(git('rev-parse', 'HEAD~1')).toBe(head)
  })
})

describe('commands get the member’s policy', () => {
  it('the environment is the allow-list plus the workspace’s variables: no provider key, no Concord variable', async () => {
    process.env.OPENAI_API_KEY = 'sk-server-secret'
    process.env.CONCORD_BRIDGE_TOKEN = 'bridge-secret-token'
    try {
      await t.core.invoke('workspaces.update', { workspaceId: ws.id, commandEnv: { GREETING: 'hello-from-settings' } })
      const m = await member('Impl')
      const step = await runCommand(m, 'env')
      expect(step.text).toContain('GREETING=hello-from-settings')
      expect(step.text).toMatch(new RegExp(`HOME=${t.dataDir}/scratch/${ws.id}/m\\d+/home`))
      expect(step.text).not.toContain('sk-server-secret')
      expect(step.text).not.toContain('bridge-secret-token')
      expect(step.text).not.toContain('sk-member-key-123')
      expect(step.text).not.toMatch(/^CONCORD_/m)
    } finally {
      delete process.env.OPENAI_API_KEY
      delete process.env.CONCORD_BRIDGE_TOKEN
    }
  })

  it('the data folder is invisible and the network follows the member’s setting', async (ctx) => {
    await needsSandbox(ctx)
    const m = await member('Impl')
    const secrets = await runCommand(m, `ls -A ${t.dataDir}; cat ${t.dataDir}/secrets.json; echo end`)
    expect(secrets.text).not.toContain('sk-member-key-123')
    expect(secrets.text).not.toContain('workspaces')
    const probe = `node -e "require('net').connect(${new URL(server.url).port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0) }).on('error', (e) => { console.log('REFUSED ' + e.code); process.exit(0) })"`
    expect((await runCommand(m, probe)).text).toContain('REFUSED')
    await t.core.invoke('members.update', { memberId: m.id, network: true })
    expect((await runCommand(m, probe)).text).toContain('CONNECTED')
  })
})

describe('after a crash', () => {
  it('kills the command process group a previous process recorded, and only if it is still that process', async () => {
    // A command left running by a Concord that died: its own process group, as run_command starts them.
    const leftover = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })
    const bystander = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })
    const gone = new Promise<NodeJS.Signals | null>((resolve) => leftover.on('exit', (_code, sig) => resolve(sig)))
    try {
      const store = t.core.harness.ctx(ws.id).store
      store.steps.addProcess(null, leftover.pid!, leftover.pid!, processStartTime(leftover.pid!) ?? null, 'x')
      // The bystander's pid with another start time: a reused pid, which must be left alone.
      store.steps.addProcess(null, bystander.pid!, bystander.pid!, '1', 'x')
      await t.core.close()
      t.core = createCore({ dataDir: t.dataDir })
      expect(await gone).toBe('SIGKILL')
      expect(existsSync(`/proc/${bystander.pid}`)).toBe(true)
      expect(t.core.harness.ctx(ws.id).store.steps.processes()).toEqual([])
    } finally {
      leftover.kill('SIGKILL')
      bystander.kill('SIGKILL')
    }
  })

  it('a command that runs records its process group while it runs and removes it when it ends', async () => {
    const m = await member('Impl')
    const store = t.core.harness.ctx(ws.id).store
    // The command waits for a file the test writes once it has seen the record: no timing involved.
    const running = runCommand(m, 'while [ ! -f go ]; do sleep 0.02; done; echo released')
    for (let i = 0; store.steps.processes().length === 0; i++) {
      if (i > 1000) throw new Error('the running command was never recorded')
      await new Promise((r) => setTimeout(r, 10))
    }
    const [record] = store.steps.processes()
    expect(existsSync(`/proc/${record!.pid}`)).toBe(true)
    writeFileSync(join(t.repoDir, 'go'), '')
    expect((await running).text).toContain('released')
    expect(store.steps.processes()).toEqual([])
  })
})
