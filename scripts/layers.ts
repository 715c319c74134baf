/**
 * `npm run layers`: cruises electron/, shared/ and renderer/src/ with the floors of .dependency-cruiser.cjs and prints
 * the figures (modules, dependencies, arrows up, cycles), then every violation; exits 1 when there is one, so
 * `npm run lint` (and .ci/run) fails on a new arrow up or a new circle. test/integration/layers.test.ts runs the same cruise
 * on the real tree and on a small tree written to break each rule.
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config'

const ROOT = path.resolve(import.meta.dirname, '..')
const SOURCES = ['electron', 'shared', 'renderer/src']

export interface LayerFigures {
  modules: number
  dependencies: number
  /** Imports of a floor above the importer's (layer-* rules, the renderer past shared/, shared/ into either side). */
  up: IViolation[]
  /** Circular imports, one per circle as dependency-cruiser reports it. */
  cycles: IViolation[]
  /** Modules under electron/ on no floor. */
  unplaced: IViolation[]
}

/**
 * Cruises `sources` (relative to `baseDir`) with the project's rules. `baseDir` is the repository by default; a test
 * passes a folder of its own, laid out like the repository.
 */
export async function cruiseLayers(baseDir = ROOT, sources = SOURCES): Promise<LayerFigures> {
  const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'))
  const tsConfig = extractTSConfig(path.join(ROOT, 'tsconfig.json'))
  // Module names are relative to baseDir, as the rules' paths are to the repository.
  const out = await cruise(sources, { ...options, baseDir, validate: true, outputType: 'json' }, {}, { tsConfig })
  const result = (typeof out.output === 'string' ? JSON.parse(out.output) : out.output) as ICruiseResult
  const violations = result.summary.violations
  return {
    modules: result.summary.totalCruised,
    dependencies: result.summary.totalDependenciesCruised ?? 0,
    up: violations.filter(
      (v) => v.rule.name.startsWith('layer-') || v.rule.name.startsWith('aggregate-') || v.rule.name.includes('shared'),
    ),
    cycles: violations.filter((v) => v.rule.name === 'no-circular'),
    unplaced: violations.filter((v) => v.rule.name === 'unplaced'),
  }
}

export function describe(v: IViolation): string {
  const cycle = v.cycle?.length ? ` (${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')})` : ''
  return `${v.rule.name}: ${v.from} → ${v.to}${cycle}`
}

async function main(): Promise<void> {
  const f = await cruiseLayers()
  console.log(`modules        ${f.modules}`)
  console.log(`dependencies   ${f.dependencies}`)
  console.log(`arrows up      ${f.up.length}`)
  console.log(`cycles         ${f.cycles.length}`)
  console.log(`unplaced       ${f.unplaced.length}`)
  const all = [...f.up, ...f.cycles, ...f.unplaced]
  for (const v of all) console.log(`  ${describe(v)}`)
  if (all.length) {
    console.log('\nThe floors and why: .dependency-cruiser.cjs')
    process.exitCode = 1
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
