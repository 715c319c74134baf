import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { at } from '../eval/at'
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? at(s, (s.length - 1) / 2) : (at(s, s.length / 2 - 1) + at(s, s.length / 2)) / 2
}

export function ms(n: number): string {
  return `${n.toFixed(2)} ms`
}

export function verdict(ok: boolean): string {
  return ok ? 'OK' : 'MISSED'
}

export function time(fn: () => void): number {
  const t0 = performance.now()
  fn()
  return performance.now() - t0
}

/** A full garbage collection now (the `gc` V8 gives with --expose-gc, reached without restarting the process). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

/** The bench's repository folder beside its data folder (Concord refuses a repository that holds its data folder). */
export function repoIn(root: string): string {
  const repo = join(root, 'repo')
  mkdirSync(repo, { recursive: true })
  return repo
}
