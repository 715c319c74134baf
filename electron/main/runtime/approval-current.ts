/**
 * The text a write_file waiting for approval would overwrite, so that the card shows the change against the file
 * as it is (not the whole file as added lines). Read from the turn's own tree only.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'

/** Larger files are shown as the whole new text, as before. */
export const CURRENT_MAX_BYTES = 256 * 1024

const inside = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}

/** null: no such file (the write creates it); undefined: not shown (outside the tree, too large, binary, unreadable). */
export function currentText(root: string, path: unknown): string | null | undefined {
  if (typeof path !== 'string' || !path) return undefined
  const full = resolve(root, path)
  if (!inside(resolve(root), full)) return undefined
  try {
    const st = statSync(full)
    if (!st.isFile() || st.size > CURRENT_MAX_BYTES) return undefined
    // A link out of the tree is not read.
    if (!inside(realpathSync(root), realpathSync(full))) return undefined
    const buf = readFileSync(full)
    return buf.includes(0) ? undefined : buf.toString('utf8')
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined
  }
}
