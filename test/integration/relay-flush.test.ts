/**
 * The events of an MCP process's last call reach the running app although the process exits right after it: the
 * relay's socket is still connecting when the agent closes stdin, and exiting then dropped what was written (a report
 * submitted from the user's own Claude Code showed only after a reload; seen as a flaky browser-agents e2e under load).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/contract'
import { EventBus } from '../../electron/main/platform/events/event-bus'
import { startRelay, type Relay } from '../../electron/main/api/concord-mcp/app-relay'

const repoRoot = join(import.meta.dirname, '..', '..')
const script = join(repoRoot, 'test', 'fixtures', 'relay-last-words.ts')
let cleanup: (() => void)[] = []
afterEach(() => {
  for (const c of cleanup.reverse()) c()
  cleanup = []
})

function runLastWords(dataDir: string, count: number): Promise<number | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir, String(count)], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return new Promise((resolve) => child.on('exit', resolve))
}

async function relayReady(dataDir: string): Promise<void> {
  for (let i = 0; i < 500 && !existsSync(join(dataDir, 'run', 'relay.json')); i++)
    await new Promise((r) => setTimeout(r, 10))
}

describe('relay from a concord mcp process', () => {
  it('delivers the events emitted just before the process exits', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'concord-relay-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const bus = new EventBus()
    const got: EventEnvelope[] = []
    bus.on((e) => got.push(e))
    const relay: Relay = startRelay(dataDir, bus)
    cleanup.push(() => relay.close())
    await relayReady(dataDir)

    expect(await runLastWords(dataDir, 3)).toBe(0)
    // The child has exited; what it sent is in the app's socket buffer or already read.
    await expect.poll(() => got.length, { timeout: 5_000 }).toBe(3)
    expect(got.map((e) => (e.payload as unknown as { reportId: string }).reportId)).toEqual(['R-1', 'R-2', 'R-3'])
  })

  it('exits at once when no app is running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'concord-relay-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }))
    expect(await runLastWords(dataDir, 1)).toBe(0)
  })
})
