/**
 * The copy of the workspace's listed files into a task's tree (first setup and "Set up again") against an agent that
 * races it: a real child process swaps the tree's folder `d/` and a link `d → elsewhere` in a loop (two renames each
 * way) while Concord copies `d/*.env` again and again. Nothing is ever written outside the tree (issue 32).
 */
import { spawn, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { copyIntoTree } from '../../electron/main/harness/workspace/tree-copy'
import { sandboxStatus } from '../../electron/main/platform/sandbox/status'

const ROUNDS = 60
const FILES = 20

let base = ''
afterEach(() => {
  if (base) rmSync(base, { recursive: true, force: true })
})

const RACER = `
const fs = require('node:fs')
const path = require('node:path')
const [tree] = process.argv.slice(1)
const p = (n) => path.join(tree, n)
for (let n = 0; ; n++) {
  const real = p('real' + n)
  try { fs.renameSync(p('d'), real) } catch { continue }
  try { fs.renameSync(p('link'), p('d')) } catch {}
  try { fs.renameSync(p('d'), p('link')) } catch {}
  // A 'd' made meanwhile (by the copy) is thrown away, so the swap goes on.
  for (;;) {
    try { fs.renameSync(real, p('d')); break } catch { fs.rmSync(p('d'), { recursive: true, force: true }) }
  }
}
`

it('never writes outside the tree while an agent swaps a folder and a link out', async (ctx) => {
  const st = await sandboxStatus()
  if (!st.available) {
    ctx.skip(`the copy runs in the sandbox, and there is none here: ${st.reason}`)
    return
  }
  base = mkdtempSync(join(os.tmpdir(), 'concord-copy-race-'))
  const repo = join(base, 'repo')
  const tree = join(base, 'tree')
  const elsewhere = join(base, 'elsewhere')
  mkdirSync(join(repo, 'd'), { recursive: true })
  mkdirSync(join(tree, 'd'), { recursive: true })
  mkdirSync(elsewhere)
  execFileSync('git', ['init', '-q'], { cwd: repo })
  writeFileSync(join(repo, '.gitignore'), '*.env\n')
  symlinkSync(elsewhere, join(tree, 'link'))
  let copied = 0
  const racer = spawn(process.execPath, ['-e', RACER, tree], { stdio: 'ignore' })
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < FILES; i++) writeFileSync(join(repo, 'd', `r${round}-f${i}.env`), `SECRET=${round}.${i}\n`)
      copied += (await copyIntoTree(repo, tree, [`d/r${round}-*.env`])).copied.length
      expect(readdirSync(elsewhere), `round ${round}: written through the link`).toEqual([])
    }
  } finally {
    const gone = new Promise((resolve) => racer.once('exit', resolve))
    racer.kill('SIGKILL')
    await gone
  }
  expect(readdirSync(elsewhere)).toEqual([])
  expect(copied, 'the copy still copies while the agent races it').toBeGreaterThan(0)
}, 120_000)
