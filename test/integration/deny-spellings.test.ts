/**
 * Deny rules mean what they say, through a real `concord serve` (issue 32): a member under `auto`, team rules
 * denying `touch` and `git push`, and a scripted model that asks to run each spelling the issue found getting
 * through. Each is refused without running (the model is told so, and `touch M` makes no file) or, where
 * Concord cannot read the command with confidence, asks; a command the rules do not name still runs.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initRepo } from '../fixtures/core'
import { apiClient, startServe } from '../fixtures/http'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { scriptedOpenAI } from '../fixtures/workspace'

let child: ChildProcess | null = null
let server: ModelServer
let root = ''
let repo = ''
let api: ReturnType<typeof apiClient>
let memberId = ''
let taskId = ''
/** The task's tree, where the member's commands run. */
let tree = ''

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'concord-deny-'))
  repo = join(root, 'repo')
  mkdirSync(repo)
  initRepo(repo)
  server = await startModelServer()
  const token = 'deny-spellings-token'
  const served = startServe(join(root, 'data'), token)
  child = served.child
  api = apiClient(await served.url, token)
  const ws = await api('workspaces.open', { repoPath: repo })
  const m = await api('members.create', {
    workspaceId: ws.id,
    name: 'Auto',
    role: 'implementer',
    approval: 'auto',
    provider: scriptedOpenAI(server),
  })
  memberId = m.id
  for (const commandPrefix of ['touch', 'git push'])
    await api('approvalRules.add', { workspaceId: ws.id, memberId: null, rule: { effect: 'deny', commandPrefix } })
  const task = await api('tasks.create', { workspaceId: ws.id, title: 'Work', assigneeId: memberId })
  server.enqueue({ text: 'Ready.' })
  await api('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
  taskId = task.id
  tree = join(root, 'data', 'worktrees', ws.id, task.key)
  // Starting the task starts the assignee's turn on it: it only answers.
  for (let i = 0; i < 300 && !((await page()).state === 'idle' && server.requests.length === 1); i++)
    await new Promise((r) => setTimeout(r, 50))
  expect(server.requests.length).toBe(1)
}, 60_000)

afterAll(async () => {
  child?.kill('SIGKILL')
  await server?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

interface Page {
  state: string
  queued: number
  pendingApprovals: { callId: string; why?: string; suggestion?: { noRule?: string } }[]
}
const page = (): Promise<Page> => api('sessions.get', { memberId })

/** One turn in which the model runs `command`: what the policy did (denied, asked, ran) and what the model was told. */
async function runThroughServe(
  command: string,
): Promise<{ outcome: string; told: string; why?: string; noRule?: string }> {
  const before = server.requests.length
  server.enqueue({ toolCalls: [{ name: 'run_command', arguments: { command } }] }, { text: 'ok' })
  await api('sessions.send', { memberId, text: `run it: ${command}`, taskId })
  let why: string | undefined
  let noRule: string | undefined
  let asked = false
  await expect
    .poll(async () => {
      const p = await page()
      if (p.state === 'waiting_approval' && p.pendingApprovals[0]) {
        asked = true
        why = p.pendingApprovals[0].why
        noRule = p.pendingApprovals[0].suggestion?.noRule
        await api('sessions.approve', { memberId, callId: p.pendingApprovals[0].callId, allow: false })
      }
      return p.state === 'idle' && p.queued === 0 && server.requests.length >= before + 2
    })
    .toBe(true)
  const messages = server.requests[before + 1]!.body.messages as { role: string; content: string }[]
  const told = messages.filter((m) => m.role === 'tool').at(-1)?.content ?? ''
  const outcome = asked ? 'asked' : told.startsWith('error (denied_by_rule)') ? 'denied' : 'ran'
  return { outcome, told, ...(why === undefined ? {} : { why }), ...(noRule === undefined ? {} : { noRule }) }
}

describe('a team deny rule through concord serve, member under auto', () => {
  it('a command the rules do not name runs (the control: commands run, in the task’s tree)', async () => {
    const r = await runThroughServe('echo hi > control.txt')
    expect(r.outcome).toBe('ran')
    expect(existsSync(join(tree, 'control.txt'))).toBe(true)
  })

  it.each([
    '{ touch M; }',
    'if true; then touch M; fi',
    '/usr/bin/touch M',
    'env touch M',
    '"touch" M',
    "sh -c 'touch M'",
    'X=1 touch M',
    'command touch M',
    "env bash -lc 'touch M'",
    'time touch M',
    '! touch M',
  ])('deny `touch` refuses %j: the file is not made', async (command) => {
    const r = await runThroughServe(command)
    expect(r).toEqual({
      outcome: 'denied',
      told: 'error (denied_by_rule): this call was refused by the rule "deny `touch …`" (for the team); it did not run. Do not retry it unchanged.',
    })
    expect(existsSync(join(tree, 'M'))).toBe(false)
  })

  it.each([
    'echo $(git push origin main)',
    '(git push origin main)',
    'git -C . push origin main',
    'bash -c "git push origin main"',
    'echo `git push origin main`',
    'true; git push origin main',
    'true && git push origin main',
    'false || git push origin main',
    'true | git push origin main',
    'true\ngit push origin main',
    '{ git push origin main; }',
    '"git" push origin main',
    'env GIT_TRACE=0 /usr/bin/git --no-pager push origin main',
  ])('deny `git push` refuses %j', async (command) => {
    const r = await runThroughServe(command)
    expect(r.outcome).toBe('denied')
    expect(r.told).toContain('refused by the rule "deny `git push …`" (for the team)')
  })

  it.each(['$X push origin main', 'eval "$CMD"', 'echo git push | sh', 'git config alias.p push && git p'])(
    'a command Concord cannot read asks, even under auto, and offers no "Always allow" rule: %j',
    async (command) => {
      const r = await runThroughServe(command)
      expect(r.outcome).toBe('asked')
      expect(r.noRule).toBe('a deny rule may refuse this command, so Concord offers no rule for it')
      expect(r.why).toMatch(
        /^Concord cannot tell whether the rule "deny (`touch …`|`git push …`)" \(for the team\) refuses it: /,
      )
    },
  )
})
