/**
 * A member whose agent runs on an SSH host: the real opencode, started over real ssh on a host of the test's own
 * (another Unix user with its own home and its own copy of opencode), working in the task's tree made there, its
 * writes brought back into the task's tree here, Concord's tools reached through the socket forwarded over the same
 * connection, the key in no file on the host, and nothing left running there once the member stops.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { opencodeProvider, opencodeTitle } from '../fixtures/agents'
import { treeOf } from '../fixtures/acp-agent-checks'
import { startedTask } from '../fixtures/harness'
import { sessionState, takeTurn } from '../fixtures/sessions'
import { childPid } from '../fixtures/processes'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'
import { buildTurn, filesHolding, hostWithOpencode, processesOfUser, until } from '../fixtures/runners'
import { fileNeedsSshHost, noSshHostReason, processesOf, type SshHost } from '../fixtures/ssh-host'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'
import type { Member } from '../../shared/schemas'

fileNeedsSshHost()
// The host is this machine: its bubblewrap is the host's, which the agent runs in there.
fileNeedsSandbox()

const KEY = 'sk-runner-key-7f3a9c'
const TIMEOUT = 180_000

let host: SshHost & { opencode: string }
let HOST = ''
let HOST_HOME = ''
let t: Team
let member: Member

beforeAll(async () => {
  if (noSshHostReason()) return
  // The host's own copy of opencode, as its user installed it there.
  host = await hostWithOpencode()
  HOST = host.alias
  HOST_HOME = host.home
  t = await workspaceWithTeam({
    isolation: 'worktree',
    server: { unscripted: opencodeTitle, defaultReply: { text: 'Not done.' } },
  })
  member = await t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Remote',
    role: 'implementer',
    authority: 'proposer',
    approval: 'auto',
    provider: {
      ...opencodeProvider(t.server),
      apiKey: KEY,
      command: host.opencode,
      args: ['acp'],
    },
    runner: { kind: 'ssh', host: HOST },
  })
}, TIMEOUT)

afterAll(async () => {
  await t?.cleanup()
  // Once the workspace is closed nothing of Concord's runs on the host: not the agent, not a shared connection.
  // (The host ends them as it sees the connections close.)
  if (host) await until(() => processesOf(host.user).length === 0, `no process of ${host.user} on the host`)
  await host?.stop()
}, TIMEOUT)

describe('a member on an SSH host', () => {
  it(
    'works in the task tree made on the host; its writes and its report come back',
    async () => {
      const d = await t.core.invoke('decisions.create', {
        workspaceId: t.ws.id,
        title: 'Greeting',
        statement: 'Say hello',
      })
      const task = await startedTask(t.core, {
        workspaceId: t.ws.id,
        title: 'Remote work',
        assigneeId: member.id,
        decisionIds: [d.id],
      })
      const steps = await buildTurn(
        t,
        member,
        {
          task,
          d,
          file: 'hello.txt',
          content: 'from the host\n',
          after: `touch ${HOST_HOME}/escaped; (setsid sleep 777 > /dev/null 2>&1 &) ; true`,
        },
        TIMEOUT,
      )
      // No 'not sandboxed' notice (bubblewrap is on the host), then its three calls (write, commit, report) and its answer.
      expect(steps.map((x) => `${x.kind} ${x.status}`)).toEqual([
        'user done',
        'tool done',
        'tool done',
        'tool done',
        'model done',
      ])
      // The file the agent wrote on the host is in the task's tree here, committed as it committed it there.
      const local = treeOf({ t, ws: t.ws } as never, task)
      expect(readFileSync(join(local, 'hello.txt'), 'utf8')).toBe('from the host\n')
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: local }).toString().trim()
      expect(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: local }).toString().trim()).toBe('hello.txt')
      // Its report came through Concord's tools over the forwarded socket, on the commit it made there.
      const reports = await t.core.invoke('reports.list', { workspaceId: t.ws.id })
      expect(reports).toHaveLength(1)
      expect(reports[0]).toMatchObject({ artifact: { commit: head } })
      // The agent ran on the host, as the host's user, with the key in its environment and in no file there.
      const agentPid = processesOfUser(host.user)
        .find((p) => p.includes('opencode acp'))!
        .split(' ')[0]
      expect(readFileSync(`/proc/${agentPid}/environ`, 'utf8').split('\0')).toContain(`OPENAI_API_KEY=${KEY}`)
      expect(filesHolding(HOST_HOME, KEY)).toEqual([])
      // In bubblewrap there (the host has it): the tree is all it writes of the host's files.
      expect(steps.some((s) => s.kind === 'notice' && s.text.includes('not sandboxed'))).toBe(false)
      expect(existsSync(join(HOST_HOME, 'escaped'))).toBe(false)
    },
    TIMEOUT,
  )

  it(
    'ends the turn when the connection drops, leaves nothing running there, and goes on with the next message',
    async () => {
      const before = t.server.requests.length
      t.server.enqueue({ text: 'too late', delayMs: 120_000 })
      const failed = sessionState(t.core, member.id, 'error', { timeoutMs: TIMEOUT })
      await t.core.invoke('sessions.send', { memberId: member.id, text: 'Take your time' })
      await t.server.waitForRequests(before + 1, TIMEOUT)
      // The connection the agent runs over ends (its ssh, killed as a dropped link ends it).
      process.kill(childPid('ExitOnForwardFailure'), 'SIGKILL')
      await failed
      const steps = (await t.core.invoke('sessions.get', { memberId: member.id })).steps
      expect(steps.at(-1)).toMatchObject({ kind: 'error' })
      expect(steps.at(-1)!.text).toContain('stopped during the turn')
      await until(
        () => !processesOfUser(host.user).some((p) => /opencode|sleep 777/.test(p)),
        'the agent on the host, and what it started, end with its connection',
      )
      t.server.enqueue({ text: 'Back again.' })
      const next = await takeTurn(t.core, { memberId: member.id, text: 'Continue' }, { timeoutMs: TIMEOUT })
      expect(next.at(-1)).toMatchObject({ kind: 'model', text: 'Back again.' })
    },
    TIMEOUT,
  )

  it(
    'stops the agent on the host when the member restarts',
    async () => {
      expect(processesOfUser(host.user).some((p) => p.includes('opencode acp'))).toBe(true)
      await t.core.invoke('sessions.restart', { memberId: member.id })
      await until(
        () => !processesOfUser(host.user).some((p) => /opencode|concord-launcher|sleep 777/.test(p)),
        'nothing of the member left on the host',
      )
    },
    TIMEOUT,
  )

  it(
    'says which host lacks the agent',
    async () => {
      const missing = await t.core.invoke('members.create', {
        workspaceId: t.ws.id,
        name: 'Missing',
        role: 'tester',
        authority: 'proposer',
        approval: 'auto',
        provider: { ...opencodeProvider(t.server), command: `${HOST_HOME}/no-such-agent`, args: ['acp'] },
        runner: { kind: 'ssh', host: HOST },
      })
      const steps = await takeTurn(
        t.core,
        { memberId: missing.id, text: 'Hello' },
        { end: 'error', timeoutMs: TIMEOUT },
      )
      expect(steps.at(-1)!.text).toContain(`opencode is not installed on SSH host ${HOST}`)
    },
    TIMEOUT,
  )
})
