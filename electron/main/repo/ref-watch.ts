/**
 * Notices when a branch of the user's repository may have moved, without polling git: fs.watch on the folder that
 * holds the branch's ref file and on the git folder (packed-refs, written by gc and by some pulls), debounced. It
 * says only "look again": the caller reads the branch's head and compares.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import { runOwnGit } from '../platform/own-git'

const DEBOUNCE_MS = 150

/** Starts watching; the returned function stops it. `onChange` runs at most once per burst of file events. */
export async function watchBranchRef(root: string, branch: string, onChange: () => void): Promise<() => void> {
  const common = (
    await runOwnGit(root, ['rev-parse', '--path-format=absolute', '--git-common-dir'], { allowFailure: true })
  ).stdout.trim()
  if (!common) return () => undefined
  const folders = new Set([common])
  // The nearest existing folder of refs/heads/<branch> (a branch "release/1" lives in refs/heads/release).
  let dir = path.dirname(path.join(common, 'refs', 'heads', branch))
  while (!existsSync(dir) && dir.startsWith(common)) dir = path.dirname(dir)
  folders.add(dir)
  let timer: NodeJS.Timeout | null = null
  let closed = false
  const fire = () => {
    if (closed) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      if (!closed) onChange()
    }, DEBOUNCE_MS)
    timer.unref?.()
  }
  const watchers: FSWatcher[] = []
  for (const f of folders) {
    try {
      const w = watch(f, { persistent: false }, fire)
      w.on('error', () => undefined)
      watchers.push(w)
    } catch {
      // A folder that cannot be watched: the next workspace open still compares the head.
    }
  }
  return () => {
    closed = true
    if (timer) clearTimeout(timer)
    for (const w of watchers) w.close()
  }
}
