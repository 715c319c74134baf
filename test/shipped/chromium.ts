/**
 * Chromium for the shipped suite, found as test/e2e/support.ts finds it (a copy: that file loads the core from the
 * sources): CONCORD_CHROMIUM, else Debian's, else the build @sparticuz/chromium ships, unpacked once per version
 * into the same temp folder the e2e tests use.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'

const SYSTEM_CHROMIUM = '/usr/bin/chromium'
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

function bundledVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'))
  for (;;) {
    const file = join(dir, 'package.json')
    if (
      existsSync(file) &&
      (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === '@sparticuz/chromium'
    )
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    if (dirname(dir) === dir) throw new Error('@sparticuz/chromium: package.json not found')
    dir = dirname(dir)
  }
}

async function bundled(): Promise<{ executablePath: string; env: NodeJS.ProcessEnv }> {
  const dir = join(tmpdir(), `concord-chromium-${bundledVersion()}`)
  if (!existsSync(join(dir, 'fonts.conf'))) {
    const work = mkdtempSync(join(tmpdir(), 'concord-chromium-unpack-'))
    const saved = process.env.TMPDIR
    process.env.TMPDIR = work
    try {
      const { default: packaged } = await import('@sparticuz/chromium')
      await packaged.executablePath()
    } finally {
      if (saved === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = saved
    }
    const conf = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts', 'fonts')}</dir>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`
    writeFileSync(join(work, 'fonts.conf'), conf)
    try {
      renameSync(work, dir)
    } catch {
      rmSync(work, { recursive: true, force: true })
    }
  }
  return { executablePath: join(dir, 'chromium'), env: { ...process.env, FONTCONFIG_FILE: join(dir, 'fonts.conf') } }
}

export async function launchChromium(): Promise<Browser> {
  const named = process.env.CONCORD_CHROMIUM
  const found =
    named && named !== 'bundled'
      ? { executablePath: named }
      : !named && existsSync(SYSTEM_CHROMIUM)
        ? { executablePath: SYSTEM_CHROMIUM }
        : await bundled()
  return chromium.launch({ ...found, args: ARGS })
}
