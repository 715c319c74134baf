/**
 * With no flavour given, the export lays MADR files out as the repository's conventions ask: `.log4brains.yml` →
 * log4brains, `.adr-dir` → adr-tools, else MADR 4 (the CLI passes no flavour unless told, so it gets the same).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Workspace } from '../../shared/schemas'
import { initRepo, makeCore, type TestCore } from '../fixtures/core'

let t: TestCore
let ws: Workspace

beforeEach(async () => {
  t = makeCore()
  initRepo(t.repoDir)
  ws = await t.core.invoke('workspaces.open', { repoPath: t.repoDir, isolation: 'shared' })
  await t.core.invoke('decisions.create', {
    workspaceId: ws.id,
    title: 'Search timeout',
    statement: 'Web search gives up after 5 s',
  })
})
afterEach(async () => {
  await t.cleanup()
})

const exported = async () => {
  const r = await t.core.invoke('export.decisionLog', { workspaceId: ws.id, format: 'madr' })
  return { outDir: r.outDir, first: readFileSync(r.files[0]!, 'utf8') }
}

describe('the default flavour', () => {
  it('is MADR 4 in a repository without ADR conventions', async () => {
    const { outDir, first } = await exported()
    expect(outDir).toBe(join(t.repoDir, 'docs', 'decisions'))
    expect(first.startsWith('---\n')).toBe(true)
  })

  it('is adr-tools where .adr-dir is', async () => {
    writeFileSync(join(t.repoDir, '.adr-dir'), 'doc/architecture\n')
    const { outDir, first } = await exported()
    expect(outDir).toBe(join(t.repoDir, 'doc', 'architecture'))
    expect(first.split('\n')[0]).toBe('# 1. Search timeout')
    expect(first).toContain('\nDate: ')
  })

  it('is log4brains where .log4brains.yml is', async () => {
    mkdirSync(join(t.repoDir, 'docs', 'adr'), { recursive: true })
    writeFileSync(join(t.repoDir, '.log4brains.yml'), 'project:\n  name: Shop\n  tz: UTC\n  adrFolder: ./docs/adr\n')
    const { first } = await exported()
    expect(first.split('\n')[0]).toBe('# Search timeout')
    expect(first).toContain('\n- Status: accepted')
  })
})
