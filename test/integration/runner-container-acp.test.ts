/**
 * A member whose agent runs in a container: the real opencode in a container of an image built here from Debian's
 * packages (Podman), working in the task's tree made inside it, its writes and its report brought back, Concord's tools
 * reached through a socket in a folder mounted into the container, the key in no file there, and the container gone
 * (with everything that ran in it) once the workspace closes.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listConcordContainers, runInContainer, type ContainerEngine } from '../../electron/main/platform/container'
import type { Member } from '../../shared/schemas'
import { buildTurn, imageWithOpencode } from '../fixtures/runners'
import { opencodeProvider, opencodeTitle } from '../fixtures/agents'
import { treeOf } from '../fixtures/acp-agent-checks'
import { needsTestImage, prepareTestImage, testImage } from '../fixtures/container-image'
import { startedTask } from '../fixtures/harness'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

prepareTestImage()

const KEY = 'sk-container-key-51d0e2'
const TIMEOUT = 240_000

let engine: ContainerEngine
let image = ''
let t: Team
let member: Member

beforeAll(async () => {
  const made = await testImage()
  if (!('image' in made)) return
  engine = made.engine
  image = await imageWithOpencode(engine, made.image)
  t = await workspaceWithTeam({
    isolation: 'worktree',
    server: { unscripted: opencodeTitle, defaultReply: { text: 'Not done.' } },
  })
  member = await t.core.invoke('members.create', {
    workspaceId: t.ws.id,
    name: 'Boxed',
    role: 'tester',
    authority: 'proposer',
    approval: 'auto',
    provider: { ...opencodeProvider(t.server), apiKey: KEY, command: '/opt/opencode/bin/opencode', args: ['acp'] },
    runner: { kind: 'container', image },
  })
}, 900_000)

afterAll(async () => {
  await t?.cleanup()
  // Once the workspace is closed, its members' containers are gone, and with them all that ran in them.
  if (engine) expect(await listConcordContainers(engine, 'concord-')).toEqual([])
}, TIMEOUT)

describe('a member in a container', () => {
  it(
    'works in the task tree made in its container; its writes and its report come back',
    async (ctx) => {
      await needsTestImage(ctx)
      const d = await t.core.invoke('decisions.create', {
        workspaceId: t.ws.id,
        title: 'Greeting',
        statement: 'Say hi',
      })
      const task = await startedTask(t.core, {
        workspaceId: t.ws.id,
        title: 'Boxed work',
        assigneeId: member.id,
        decisionIds: [d.id],
      })
      const steps = await buildTurn(t, member, { task, d, file: 'hi.txt', content: 'from the box\n' }, TIMEOUT)
      // No 'not sandboxed' notice (the container is its sandbox), then its three calls and its answer.
      expect(steps.map((x) => `${x.kind} ${x.status}`)).toEqual([
        'user done',
        'tool done',
        'tool done',
        'tool done',
        'model done',
      ])
      const local = treeOf({ t, ws: t.ws } as never, task)
      expect(readFileSync(join(local, 'hi.txt'), 'utf8')).toBe('from the box\n')
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: local }).toString().trim()
      const reports = await t.core.invoke('reports.list', { workspaceId: t.ws.id })
      expect(reports).toHaveLength(1)
      expect(reports[0]).toMatchObject({ artifact: { commit: head } })
      // The agent's environment holds the key; no file in the container does.
      const [name] = await listConcordContainers(engine, 'concord-')
      const environ = await runInContainer(engine, name!, [
        'sh',
        '-c',
        'cat /proc/$(pgrep -f "opencode acp" | head -1)/environ',
      ])
      expect(environ.stdout.toString('utf8').split('\0')).toContain(`OPENAI_API_KEY=${KEY}`)
      const grep = await runInContainer(engine, name!, [
        'grep',
        '-rlF',
        KEY,
        '/root',
        '/tmp',
        '/opt',
        '/concord-run',
        '/etc',
      ])
      expect(grep.stdout.toString('utf8')).toBe('')
    },
    TIMEOUT,
  )
})
