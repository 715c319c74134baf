/**
 * The floors of the code (.dependency-cruiser.cjs, npm run layers): the real tree has no arrow up and no circle, and
 * a small tree laid out like the repository, written to break each rule, has each break reported. An integration test:
 * the cruise parses every module of the tree with TypeScript (5 s of CPU, a third of `npm run test:unit`'s when it
 * was a unit test), and `npm run lint` makes the same check of the real tree on every change.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cruiseLayers, describe as words } from '../../scripts/layers'

// Cruising the whole tree parses every module with TypeScript: seconds on an idle machine, more under load.
const CRUISE_MS = 180_000

describe('layers', () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

  it(
    'the real tree: no arrow up, no circle, every module on a floor',
    async () => {
      const f = await cruiseLayers()
      expect([...f.up, ...f.cycles, ...f.unplaced].map(words)).toEqual([])
      expect(f.modules).toBeGreaterThan(200)
      expect(f.dependencies).toBeGreaterThan(f.modules)
    },
    CRUISE_MS,
  )

  it(
    'a tree that breaks each rule: every break is reported, and nothing else',
    async () => {
      const root = mkdtempSync(path.join(tmpdir(), 'concord-layers-'))
      dirs.push(root)
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
        writeFileSync(path.join(root, file), text)
      }
      write('shared/rule.ts', 'export const rule = 1\n')
      write('electron/main/platform/git.ts', "import { rule } from '../../../shared/rule'\nexport const git = rule\n")
      write('electron/main/runtime/engine.ts', "import { git } from '../platform/git'\nexport const engine = git\n")
      // Arrows down: allowed.
      write('electron/main/harness/fine.ts', "import { git } from '../platform/git'\nexport const fine = git\n")
      // The domain reaching up into the runtime.
      write('electron/main/harness/up.ts', "import { engine } from '../runtime/engine'\nexport const up = engine\n")
      // The platform reaching up into the store.
      write('electron/main/platform/log/up.ts', "import { a } from '../../store/a'\nexport const logUp = a\n")
      // A circle in the store.
      write('electron/main/store/a.ts', "import { b } from './b'\nexport const a = 1\nexport const ab = () => b\n")
      write('electron/main/store/b.ts', "import { a } from './a'\nexport const b = () => a\n")
      // A folder on no floor.
      write('electron/main/gadgets/x.ts', "import { rule } from '../../../shared/rule'\nexport const x = rule\n")
      // The harness's aggregates: a decision's change may reach a task (down); a task may not reach a decision, and the
      // kernel (ids, context, mappers) no aggregate (up).
      write('electron/main/harness/tasks/t.ts', 'export const t = 1\n')
      write('electron/main/harness/decisions/d.ts', "import { t } from '../tasks/t'\nexport const d = t\n")
      write('electron/main/harness/tasks/up.ts', "import { d } from '../decisions/d'\nexport const tasksUp = d\n")
      write('electron/main/harness/kernel-up.ts', "import { t } from './tasks/t'\nexport const kernelUp = t\n")
      // The renderer's floors: a feature may use the kit (down); the kit may not reach into a feature (up).
      write('renderer/src/features/chips/Chip.ts', 'export const chip = 1\n')
      write(
        'renderer/src/components/Kit.ts',
        "import { chip } from '../features/chips/Chip'\nexport const kit = chip\n",
      )
      write(
        'renderer/src/features/chips/Uses.ts',
        "import { kit } from '../../components/Kit'\nexport const uses = kit\n",
      )
      // The renderer past shared/.
      write('renderer/src/view.ts', "import { git } from '../../electron/main/platform/git'\nexport const view = git\n")

      const f = await cruiseLayers(root, ['electron', 'shared', 'renderer/src'])
      expect(f.up.map((v) => `${v.rule.name} ${v.from} → ${v.to}`).sort()).toEqual([
        'aggregate-kernel electron/main/harness/kernel-up.ts → electron/main/harness/tasks/t.ts',
        'aggregate-tasks electron/main/harness/tasks/up.ts → electron/main/harness/decisions/d.ts',
        'layer-domain electron/main/harness/up.ts → electron/main/runtime/engine.ts',
        'layer-platform electron/main/platform/log/up.ts → electron/main/store/a.ts',
        'renderer-components renderer/src/components/Kit.ts → renderer/src/features/chips/Chip.ts',
        'renderer-sees-shared-only renderer/src/view.ts → electron/main/platform/git.ts',
      ])
      expect(f.cycles.length).toBeGreaterThan(0)
      for (const v of f.cycles) expect(v.from).toMatch(/^electron\/main\/store\/[ab]\.ts$/)
      expect(f.unplaced.map((v) => v.from)).toEqual(['electron/main/gadgets/x.ts'])
    },
    CRUISE_MS,
  )

  it(
    'the runtime and the faces never import the store (value or type): they reach it through the harness',
    async () => {
      const root = mkdtempSync(path.join(tmpdir(), 'concord-layers-'))
      dirs.push(root)
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
        writeFileSync(path.join(root, file), text)
      }
      write(
        'electron/main/store/steps-repo.ts',
        'export interface StepRow {\n  id: number\n}\nexport const steps = 1\n',
      )
      // The harness re-exports the row type: allowed, and the way up for the runtime.
      write('electron/main/harness/rows.ts', "export type { StepRow } from '../store/steps-repo'\n")
      write(
        'electron/main/runtime/fine.ts',
        "import type { StepRow } from '../harness/rows'\nexport const fine = (r: StepRow) => r.id\n",
      )
      write(
        'electron/main/runtime/typed.ts',
        "import type { StepRow } from '../store/steps-repo'\nexport const typed = (r: StepRow) => r.id\n",
      )
      write('electron/main/api/valued.ts', "import { steps } from '../store/steps-repo'\nexport const valued = steps\n")

      const f = await cruiseLayers(root, ['electron'])
      expect(f.up.map((v) => `${v.rule.name} ${v.from} → ${v.to}`).sort()).toEqual([
        'layer-runtime-not-store electron/main/api/valued.ts → electron/main/store/steps-repo.ts',
        'layer-runtime-not-store electron/main/runtime/typed.ts → electron/main/store/steps-repo.ts',
      ])
    },
    CRUISE_MS,
  )
})
