/**
 * What earlier base checks learned, kept for the next (base-check.ts): git's answers about objects alone, and each
 * commit's last check, on which a check after the base moved may build.
 */

export const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/**
 * What git answered about objects alone (a commit's tree; the files a commit changed since a merge base), per tree:
 * the same names always name the same content, so a check after the next move asks only what the move changed.
 */
const pure = new Map<string, string>()
const PURE_MAX = 20_000

export function remember(tree: string, what: string, answer: string): void {
  if (pure.size >= PURE_MAX) pure.clear()
  pure.set(`${tree}\0${what}`, answer)
}

export function recall(tree: string, what: string): string | undefined {
  return pure.get(`${tree}\0${what}`)
}

/**
 * A commit's last check: the base it was checked against, its one merge base with it and how far behind it was. A
 * later base H that descends from that one (every commit of the old base is in H) and gained none of the commit's own
 * history has the same merge base (the commits both reach are the same), and is behind by the commits H gained more.
 */
export interface Since {
  head: string
  mb: string
  behind: number
}

export const sinceKey = (commit: string) => `since\0${commit}`

export function sinceOf(kept: string | undefined): Since | null {
  const [head = '', mb = '', behind = ''] = (kept ?? '').split(' ')
  return SHA.test(head) && SHA.test(mb) && /^\d+$/.test(behind) ? { head, mb, behind: Number(behind) } : null
}

/** Tasks in a group's calls at most (their trees' object folders are named in one variable). */
const GROUP_MAX = 64

/**
 * The tasks checked before against another base, grouped by that base, GROUP_MAX at most per group (this base
 * itself needs no git call).
 */
export function sinceGroups(since: Map<number, Since>, base: string): { head: string; members: number[] }[] {
  const byHead = new Map<string, number[]>()
  for (const [i, { head }] of since) if (head !== base) byHead.set(head, [...(byHead.get(head) ?? []), i])
  return [...byHead].flatMap(([head, all]) => {
    const out: { head: string; members: number[] }[] = []
    for (let k = 0; k < all.length; k += GROUP_MAX) out.push({ head, members: all.slice(k, k + GROUP_MAX) })
    return out
  })
}
