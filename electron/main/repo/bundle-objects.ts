/**
 * The objects of a task tree's bundle checked before any of them enters the user's repository. `git fetch <bundle>`
 * ignores transfer.fsckObjects before git 2.46 (it unbundles without --strict), so a commit with a broken committer
 * line would reach the user's repository and fail their `git fsck`. The pack that follows the bundle's header is
 * indexed here with `git index-pack --strict` (every object fsck-checked, every link present) in Concord's own
 * quarantine repository: the same check on every git version.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { ApiError } from '../../../shared/errors'
import { runOwnGit } from '../platform/own-git'

/** A bundle's header (refs and prerequisites) is short; a longer one is not a bundle git made for one head. */
const HEADER_MAX = 64 * 1024

/** Where the pack starts in a bundle file: after the header's empty line. */
export function packOffset(file: string): number {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(HEADER_MAX)
    const n = readSync(fd, buf, 0, HEADER_MAX, 0)
    const head = buf.subarray(0, n)
    if (!/^# v[23] git bundle\n/.test(head.subarray(0, 20).toString('latin1')))
      throw new ApiError('io_error', 'the bundle of the tree has no git bundle header')
    const end = head.indexOf('\n\n')
    if (end < 0) throw new ApiError('io_error', 'the bundle of the tree has no end to its header')
    return end + 2
  } finally {
    closeSync(fd)
  }
}

/**
 * Indexes the bundle's pack into `quarantine` (a bare repository that reads the user's objects through alternates),
 * every object checked. ApiError 'invalid_objects' when git finds a broken object or link.
 */
export async function checkBundleObjects(quarantine: string, file: string, branch: string): Promise<void> {
  const r = await runOwnGit(quarantine, ['index-pack', '--strict', '--fix-thin', '--stdin'], {
    allowFailure: true,
    inputFile: { path: file, start: packOffset(file) },
  })
  if (r.code === 0) return
  const detail = r.stderr.replace(/^tmp_pack_\S*/gm, '').trim() || `exit code ${r.code}`
  if (
    /fsck error|error in (commit|tree|tag|blob)|^error: object [0-9a-f]+:|broken link|missing (commit|tree|blob|tag)/m.test(
      r.stderr,
    )
  )
    throw new ApiError(
      'invalid_objects',
      `${branch}'s commits hold objects git calls broken (${detail.split('\n')[0]}), so Concord did not bring them into your repository: fix or remake those commits in the task's tree (git commit --amend, or commit the files again)`,
    )
  throw new ApiError('io_error', `could not check the commits of ${branch}: ${detail}`)
}
