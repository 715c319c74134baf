import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { createCore } from '../../electron/main/core'
import { initRepo, waitForEvent } from '../fixtures/core'
import { apiClient, memberMidTurn, startServe } from '../fixtures/http'
import { startModelServer, type ModelServer } from '../fixtures/model-server'

let child: ChildProcess | null = null
let server: ModelServer | null = null
let root = ''

afterEach(async () => {
  child?.kill('SIGKILL')
  await server?.close()
  if (root) rmSync(root, { recursive: true, force: true })
})

/** Starts `concord serve` in a child process and resolves with its base URL once it prints it. */
function serve(dataDir: string, token: string): Promise<string> {
  const served = startServe(dataDir, token)
  child = served.child
  return served.url
}

it('a killed process loses no committed step: the interrupted turn is marked and the member carries on', async () => {
  root = mkdtempSync(join(tmpdir(), 'concord-restart-'))
  const dataDir = join(root, 'data')
  const repo = join(root, 'repo')
  mkdirSync(repo)
  initRepo(repo)
  server = await startModelServer()
  const base = await serve(dataDir, 'restart-test-token')
  const api = apiClient(base, 'restart-test-token')
  const m = await memberMidTurn(api, repo, server, {
    text: 'Partial thoughts that will be cut off by a crash',
    hang: true,
    chunkSize: 4,
    chunkDelayMs: 5,
  })
  // Wait until the streamed text is durable (it is flushed at least every 250 ms).
  let persisted = ''
  for (let i = 0; i < 100 && persisted.length < 10; i++) {
    const page = await api('sessions.get', { memberId: m.id })
    persisted = page.steps.find((s: { kind: string }) => s.kind === 'model')?.text ?? ''
    if (persisted.length < 10) await new Promise((r) => setTimeout(r, 50))
  }
  expect(persisted.length).toBeGreaterThanOrEqual(10)
  child!.kill('SIGKILL')
  await new Promise((r) => child!.once('exit', r))
  child = null

  const core = createCore({ dataDir, provider: { maxRetries: 0 } })
  try {
    const page = await core.invoke('sessions.get', { memberId: m.id })
    expect(page.steps.map((s) => [s.kind, s.status])).toEqual([
      ['user', 'done'],
      ['model', 'interrupted'],
      ['interrupted', 'done'],
    ])
    expect(page.steps[1]!.text.startsWith(persisted)).toBe(true)
    expect(page.state).toBe('idle')

    server.enqueue({ text: 'Picking up where I left off.' })
    const idle = waitForEvent(
      core,
      (e) => e.event === 'session.state' && e.payload.session.state === 'idle' && e.payload.session.queued === 0,
    )
    await core.invoke('sessions.send', { memberId: m.id, text: 'Carry on' })
    await idle
    const resumed = server.requests.at(-1)!.body.messages as { role: string; content: string }[]
    expect(resumed.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(resumed[2]!.content).toContain(persisted)
    expect(resumed[3]!.content).toContain('Carry on')
    expect(resumed[3]!.content).toContain('the turn was not finished')
  } finally {
    await core.close()
  }
})
