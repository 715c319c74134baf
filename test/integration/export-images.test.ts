/**
 * Images in prompts are not in the export (issue 35): after a message with a screenshot, the JSON and Markdown
 * exports of the workspace hold neither the image's bytes nor its base64, in any file written.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pngInput, solidPng } from '../fixtures/images'
import { takeTurn } from '../fixtures/sessions'
import { workspaceWithTeam, type Team } from '../fixtures/workspace'

let t: Team
let out = ''
beforeEach(async () => {
  t = await workspaceWithTeam({ members: ['Ivy'] })
  out = mkdtempSync(join(tmpdir(), 'concord-export-images-'))
})
afterEach(async () => {
  await t.cleanup()
  rmSync(out, { recursive: true, force: true })
})

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))

describe('the export and images', () => {
  it('holds no image a message carried', async () => {
    const png = solidPng(6, 6, [9, 99, 199])
    await t.core.invoke('decisions.create', {
      workspaceId: t.ws.id,
      title: 'Use SQLite',
      statement: 'We keep the harness in SQLite.',
    })
    t.server.enqueue({ text: 'Seen.' })
    const steps = await takeTurn(t.core, { memberId: t.members[0]!.id, text: 'Look', images: [pngInput(png)] })
    expect(steps.find((s) => s.kind === 'user')!.images).toBe(1)
    for (const format of ['json', 'markdown'] as const) {
      const outDir = join(out, format)
      await t.core.invoke('export.decisionLog', { workspaceId: t.ws.id, format, outDir })
      const written = files(outDir)
      expect(written.length).toBeGreaterThan(0)
      for (const f of written) {
        const bytes = readFileSync(f)
        expect(bytes.includes(png)).toBe(false)
        expect(bytes.includes(png.toString('base64'))).toBe(false)
      }
    }
  })
})
