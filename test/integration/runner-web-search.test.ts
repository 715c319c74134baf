/**
 * The running example with members on other machines: the implementer (the real opencode) on an SSH host, the tester
 * (the real opencode) in a container. The task is built on the host and verified in the container; the human's edit of
 * the decision flags the task and makes both reports stale exactly as on one machine; the implementer adjusts on the
 * host, the tester verifies again in the container, the task merges with what they made; nothing is left running on
 * either runner and the keys are in no file on them. Concord's automatic turns are off so that the test says who
 * acts when; what the harness decides (flags, staleness, evidence) does not depend on where a member runs.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listConcordContainers, runInContainer, type ContainerEngine } from '../../electron/main/platform/container'
import type { Decision, Member, Task } from '../../shared/schemas'
import { opencodeProvider, opencodeTitle } from '../fixtures/agents'
import { testImage, prepareTestImage, needsTestImage } from '../fixtures/container-image'
import { editForSlowProviders, searchTask } from '../fixtures/harness'
import {
  filesHolding,
  hostWithOpencode,
  imageWithOpencode,
  opencodeCalls as call,
  processesOfUser,
  until,
} from '../fixtures/runners'
import { takeTurn } from '../fixtures/sessions'
import { fileNeedsSshHost, noSshHostReason, type SshHost } from '../fixtures/ssh-host'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

fileNeedsSshHost()
prepareTestImage()

const IMPL_KEY = 'sk-impl-on-host-8c1f'
const TEST_KEY = 'sk-tester-in-box-2e7a'
const TIMEOUT = 300_000

let host: SshHost & { opencode: string }
let engine: ContainerEngine
let t: Team
let impl: Member
let tester: Member
let d: Decision
let task: Task

const head = (dir: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir }).toString().trim()
const turn = (m: Member, text: string, taskId?: string) =>
  takeTurn(t.core, { memberId: m.id, text, ...(taskId ? { taskId } : {}) }, { timeoutMs: TIMEOUT })
const reports = () => t.core.invoke('reports.list', { taskId: task.id })

beforeAll(async () => {
  const made = await testImage()
  if (noSshHostReason() || !('image' in made)) return
  engine = made.engine
  const image = await imageWithOpencode(engine, made.image)
  host = await hostWithOpencode()
  t = await workspaceWithTeam({
    isolation: 'worktree',
    server: { unscripted: opencodeTitle, defaultReply: { text: 'Not done.' } },
  })
  await t.core.invoke('workspaces.update', {
    workspaceId: t.ws.id,
    autoTurns: false,
    autoChecks: false,
    startAgentOnTaskStart: false,
  })
  const member = (name: string, role: string, apiKey: string, command: string, runner: Member['runner']) =>
    t.core.invoke('members.create', {
      workspaceId: t.ws.id,
      name,
      role,
      authority: 'proposer',
      approval: 'auto',
      provider: { ...opencodeProvider(t.server), apiKey, command, args: ['acp'] },
      runner,
    })
  impl = await member('Impl', 'implementer', IMPL_KEY, host.opencode, { kind: 'ssh', host: host.alias })
  tester = await member('Tess', 'tester', TEST_KEY, '/opt/opencode/bin/opencode', { kind: 'container', image })
  // Evidence: the tester's test (this team has no reviewer).
  ;({ d, task } = await searchTask(t.core, t.ws.id, impl, { requiredReports: ['test'] }))
}, 900_000)

afterAll(async () => {
  await t?.cleanup()
  if (host) {
    await until(() => processesOfUser(host.user).length === 0, 'nothing running on the SSH host')
    await host.stop()
  }
  if (engine) expect(await listConcordContainers(engine, 'concord-')).toEqual([])
}, TIMEOUT)

describe('web search, built on an SSH host and tested in a container', () => {
  it('flags, re-verifies and merges exactly as on one machine', async (ctx) => {
    await needsTestImage(ctx)
    const claims = (text: string) => [{ text, decisionIds: [d.key] }]
    const tree = (await t.core.invoke('tasks.treePath', { taskId: task.id })).path

    // The implementer builds it on the host.
    t.server.enqueue(call.write('search.js', 'export const TIMEOUT_S = 5\n'))
    t.server.enqueue(call.bash('git add search.js && git -c user.name=I -c user.email=i@i commit -qm "web search"'))
    t.server.enqueue(
      call.report({ taskId: task.key, kind: 'implementation', summary: 'built', claims: claims('gives up at 5 s') }),
    )
    t.server.enqueue({ text: 'Built.' })
    await turn(impl, `Build ${task.key}`)
    const built = head(tree)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: built } })

    // The tester verifies the delivered commit in its container.
    t.server.enqueue(call.bash('grep -q "TIMEOUT_S = 5" search.js'))
    t.server.enqueue(call.report({ taskId: task.key, kind: 'test', summary: 'tested', claims: claims('5 s holds') }))
    t.server.enqueue({ text: 'Tested.' })
    await turn(tester, `Verify ${task.key}`, task.id)
    expect((await reports()).map((r) => [r.kind, r.validity, r.artifact.commit])).toEqual([
      ['implementation', 'valid', built],
      ['test', 'valid', built],
    ])

    // The human's edit: the task is flagged, both reports are stale, wherever their authors run.
    await editForSlowProviders(t.core, d)
    expect(await t.core.invoke('tasks.get', { taskId: task.id })).toMatchObject({ flagged: true })
    expect((await reports()).map((r) => r.validity)).toEqual(['stale', 'stale'])

    // The implementer adjusts on the host (the human hands the task back), the tester verifies again in the container.
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'in_progress' })
    t.server.enqueue(call.write('search.js', 'export const TIMEOUT_S = 10\nexport const PARTIAL = true\n'))
    t.server.enqueue(call.bash('git -c user.name=I -c user.email=i@i commit -qam "10 s, partial results"'))
    t.server.enqueue(
      call.report({ taskId: task.key, kind: 'implementation', summary: 'adjusted', claims: claims('10 s, partial') }),
    )
    t.server.enqueue({ text: 'Adjusted.' })
    await turn(impl, `Adjust ${task.key} to the decision as it is now`)
    const adjusted = head(tree)
    expect(adjusted).not.toBe(built)
    await t.core.invoke('tasks.setStatus', { taskId: task.id, status: 'delivered', artifact: { commit: adjusted } })
    t.server.enqueue(call.bash('grep -q "TIMEOUT_S = 10" search.js && grep -q PARTIAL search.js'))
    t.server.enqueue(call.report({ taskId: task.key, kind: 'test', summary: 'retested', claims: claims('10 s holds') }))
    t.server.enqueue({ text: 'Retested.' })
    await turn(tester, `Verify ${task.key} again`, task.id)
    const now = await reports()
    expect(now.filter((r) => r.validity === 'valid').map((r) => [r.kind, r.artifact.commit])).toEqual([
      ['implementation', adjusted],
      ['test', adjusted],
    ])

    // The keys reached the agents' environments only: no file on the host or in the container holds them.
    expect(filesHolding(host.home, IMPL_KEY)).toEqual([])
    const [box] = await listConcordContainers(engine, 'concord-')
    const grep = await runInContainer(engine, box!, ['grep', '-rlF', TEST_KEY, '/root', '/tmp', '/opt', '/etc'])
    expect(grep.stdout.toString('utf8')).toBe('')

    // It merges with what they made.
    await t.core.invoke('tasks.accept', { taskId: task.id })
    const merged = await t.core.invoke('tasks.merge', { taskId: task.id })
    const main = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: t.repoDir }).toString().trim()
    expect(merged.merged?.commit).toBe(main)
    expect(execFileSync('git', ['show', 'HEAD:search.js'], { cwd: t.repoDir }).toString()).toContain('TIMEOUT_S = 10')
  }, 900_000)
})
