#!/usr/bin/env node
/**
 * Builds the command line into out/cli/concord.js and its chunks (npm packages stay imports), for plain
 * Node. A separate esbuild step rather than a fourth electron-vite entry: electron-vite's main build
 * targets Electron's runtime and empties its folder first, while the CLI targets Node 20 and is
 * replaced file by file with atomic renames, so test files that rebuild it when stale, in parallel,
 * never run a half-written build. It takes well under a second.
 *
 *   node scripts/build-cli.mjs [--if-stale]
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const cliFile = join(root, 'out', 'cli', 'concord.js')
const sources = ['electron', 'shared', 'package.json', 'scripts/build-cli.mjs'].map((p) => join(root, p))

function newestMtime(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

export function cliIsStale() {
  let built
  try {
    built = statSync(cliFile).mtimeMs
  } catch {
    return true
  }
  return sources.some((s) => newestMtime(s) > built)
}

/**
 * Pure-JavaScript packages every `concord serve` loads are bundled in: loading zod, yaml, ws and pino file by
 * file through Node's ESM loader took about half of the start (P5). Everything else stays an import: native
 * modules (better-sqlite3), the provider and agent SDKs (loaded when first used), and what only tools use.
 */
const BUNDLED = new Set(['zod', 'yaml', 'ws', 'pino'])

function externalPackages() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.optionalDependencies }).filter(
    (n) => !BUNDLED.has(n),
  )
  // ws requires these optional native helpers when present; they stay optional.
  return [...names, 'bufferutil', 'utf-8-validate'].flatMap((n) => [n, `${n}/*`])
}

/**
 * Dynamic imports become chunks, so `--help` and `--version` load no npm package. Every file is written
 * under a temporary name and renamed into place, chunks before the entry: a process starting meanwhile
 * loads the old entry with the chunks it names (they stay) or the new one with its own. `prune` removes
 * chunks the new build does not name (a full build; not while tests may be running an older one).
 */
export async function buildCli({ prune = false } = {}) {
  const { build } = await import('esbuild')
  const outdir = dirname(cliFile)
  const result = await build({
    entryPoints: [join(root, 'electron', 'cli', 'concord.ts')],
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externalPackages(),
    // Bundled CommonJS packages call require(): give the ESM output one.
    banner: {
      js: "import { createRequire as __concordCreateRequire } from 'node:module'; const require = __concordCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
    write: false,
  })
  const files = [...result.outputFiles].sort((a, b) => Number(a.path === cliFile) - Number(b.path === cliFile))
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true })
    const tmp = `${file.path}.${process.pid}.tmp`
    writeFileSync(tmp, file.contents, { mode: 0o755 })
    renameSync(tmp, file.path)
  }
  if (prune) {
    const keep = new Set(files.map((f) => f.path))
    const chunks = join(outdir, 'chunks')
    for (const name of readdirSync(chunks))
      if (!keep.has(join(chunks, name))) rmSync(join(chunks, name), { force: true })
  }
}

/** Builds when a source is newer than the build; a checkout without esbuild (--omit=dev) keeps the build it has. */
export async function ensureCliBuilt() {
  if (!cliIsStale()) return
  try {
    await import('esbuild')
  } catch {
    if (statSync(cliFile, { throwIfNoEntry: false })) return
    throw new Error('the command line is not built and esbuild is not installed: run npm install, then npm run build')
  }
  await buildCli()
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--if-stale')) await ensureCliBuilt()
  else await buildCli({ prune: true })
}
