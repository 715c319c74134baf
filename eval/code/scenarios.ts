/**
 * The code scenarios (issue 30): several tasks change one codebase in parallel, each in its own tree from the same
 * base, and are merged in turn. A scenario is only data: the files of the codebase, the tasks (who implements each,
 * the files it changes) and the order the human merges them in. Tasks that share a file change different lines of
 * it, so every merge is clean for git; what a merge can do is land a tree nobody tested (the base moved under it).
 */
import { Prng } from '../prng'

export interface CodeTask {
  title: string
  /** Implementer index (0-based, among the scenario's implementers). */
  implementer: number
  /** Files of the codebase the task changes. */
  files: string[]
}
export interface CodeScenario {
  name: string
  implementers: number
  files: string[]
  tasks: CodeTask[]
  /** Task indexes in the order the human merges them. */
  order: number[]
}

/** The seed's code scenario: the search tool and its users, as in the Web Search scenario. */
export function searchCodeScenario(): CodeScenario {
  return {
    name: 'code-search',
    implementers: 2,
    files: ['src/search.js', 'src/list.js', 'src/banner.js'],
    tasks: [
      { title: 'Partial results', implementer: 0, files: ['src/search.js'] },
      { title: 'Result bullets', implementer: 1, files: ['src/search.js', 'src/list.js'] },
      { title: 'Incomplete banner', implementer: 0, files: ['src/banner.js'] },
    ],
    order: [0, 1, 2],
  }
}

const FILES = ['src/search.js', 'src/list.js', 'src/banner.js', 'src/api.js', 'src/cache.js', 'src/log.js']

/** Code variant `index` of the seed: 2–4 implementers, 3–6 tasks, each changing 1–2 of 4–6 files. */
export function generateCodeScenario(seed: number, index: number): CodeScenario {
  const g = new Prng(seed, index, 0xc0de)
  const implementers = g.int(2, 4)
  const files = FILES.slice(0, g.int(4, FILES.length))
  const count = g.int(3, 6)
  const tasks = Array.from({ length: count }, (_, i) => ({
    title: `Change ${i + 1}`,
    implementer: i % implementers,
    files: g.shuffle(files).slice(0, g.int(1, 2)).sort(),
  }))
  return {
    name: `code-${index + 1}`,
    implementers,
    files,
    tasks,
    order: g.shuffle(tasks.map((_, i) => i)),
  }
}

/** The seed's code scenario and `variants` generated ones; none with variants < 0 (left out). */
export function codeScenarios(seed: number, variants: number): CodeScenario[] {
  if (variants < 0) return []
  return [searchCodeScenario(), ...Array.from({ length: variants }, (_, i) => generateCodeScenario(seed, i))]
}
