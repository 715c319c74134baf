/**
 * The store's read handle (store/readable-store.ts): pages, the mappers and the brief are given a ReadableStore, which
 * offers every repository's reading methods and none of its writing ones. The @ts-expect-error lines are the test that
 * bites: `npm run typecheck` fails as soon as a writing method becomes visible to readers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ReadableStore } from '../../electron/main/store/readable-store'
import { WorkspaceStore } from '../../electron/main/store/workspace-store'

/** Calls that write, which a reader must not be able to make (typechecked, never run). */
export function writesAreHidden(r: ReadableStore): void {
  // @ts-expect-error flagging tasks writes
  r.tasks.flagDependents(1, 'fingerprint', 'now')
  // @ts-expect-error inserting a revision writes
  r.decisions.insertRevision({})
  // @ts-expect-error a notice is written
  r.log.insertNotice({})
  // @ts-expect-error counters are written
  r.log.bump('x')
  // @ts-expect-error a step is written
  r.steps.insert({})
  // @ts-expect-error a member's settings are written
  r.members.update(1, {})
  // @ts-expect-error a branch's head is written
  r.branches.setHead(1, 'sha')
  // @ts-expect-error a report is written
  r.reports.insert({})
  // @ts-expect-error the read handle has no transaction
  r.transaction(() => 0)
}

describe('the read handle', () => {
  it('is what a WorkspaceStore is to a reader: it reads the same rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'concord-readable-'))
    const store = WorkspaceStore.open(join(dir, 'harness.sqlite'))
    try {
      const readable: ReadableStore = store
      expect(readable.tasks.list()).toEqual(store.tasks.list())
      expect(readable.members.list()).toEqual([])
      expect(readable.settings.get()).toEqual(store.settings.get())
    } finally {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
