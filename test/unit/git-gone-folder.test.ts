/**
 * git spawned in a folder that is gone (a task tree removed while a check ran) answers ENOENT like a missing git: the
 * error says which, so a removed tree is never reported as "git is not installed".
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runOwnGit } from '../../electron/main/platform/own-git'

describe('git in a folder that is gone', () => {
  it('fails with git_error naming the folder, not git_missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'concord-gone-'))
    rmSync(dir, { recursive: true })
    const err = await runOwnGit(dir, ['status'], { allowFailure: true }).then(
      () => null,
      (e: unknown) => e as { code?: string; message?: string },
    )
    expect(err?.code).toBe('git_error')
    expect(err?.message).toContain(`the folder ${dir} does not exist`)
  })
})
