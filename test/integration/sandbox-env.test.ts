/**
 * The environment cannot run programs outside the sandbox: Concord's own programs (bwrap, git, an agent's launcher)
 * are found on the trusted path and started with a fixed environment, so a relative PATH entry of a workspace or an
 * agent's PATH cannot replace them and a loader variable cannot enter them; the variables that would make a program
 * run other code, and secret-looking ones, are refused where they are set. Real bubblewrap, real git, a real
 * LD_PRELOAD library built with the system's C compiler.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommandTool } from '../../electron/main/runtime/tools/command-tool'
import { assertAllowedEnv, envRefusal } from '../../electron/main/platform/command-env'
import { gitStatusTool } from '../../electron/main/runtime/tools/git-tools'
import { runOwnGit } from '../../electron/main/platform/own-git'
import { parseArgs } from '../../electron/main/runtime/tools/tool-helpers'
import { sandboxedAgentSpawn } from '../../electron/main/platform/sandbox/agent-spawn'
import { sandboxedSpawn, type SandboxedSpawn } from '../../electron/main/platform/sandbox/spawn'
import { ToolError } from '../../electron/main/platform/tool-error'
import type { SandboxPolicy } from '../../electron/main/platform/sandbox-policy'
import type { ToolContext } from '../../electron/main/runtime/tools/types'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'

let base: string
let root: string
let scratchDir: string
let planted: string // <root>/node_modules/.bin
let marker: string

const ctx = (policy: SandboxPolicy = {}): ToolContext => ({
  workspaceRoot: root,
  signal: new AbortController().signal,
  sandbox: { scratchDir, ...policy },
})
const run = (command: string, c: ToolContext = ctx()): Promise<string> =>
  runCommandTool.run(parseArgs(runCommandTool.args, { command }, 'run_command'), c)

/** Runs a spawn plan to its end; stdout and stderr together. */
function runPlan(plan: SandboxedSpawn): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out }))
  })
}

/** A program that, wherever it is run from, leaves `<marker>` behind: the proof that it ran as the user. */
async function plant(dir: string, name: string): Promise<void> {
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, name)
  await writeFile(file, `#!/bin/sh\necho "${name} $*" >> ${marker}\nexit 0\n`)
  chmodSync(file, 0o755)
}

fileNeedsSandbox()

beforeAll(async () => {
  // Outside /tmp: the sandbox's private /tmp must not be what hides the marker from a planted program.
  base = await realpath(await mkdtemp(path.join('/var/tmp', 'concord-sandbox-env-')))
  root = path.join(base, 'repo')
  scratchDir = path.join(base, 'scratch')
  planted = path.join(root, 'node_modules', '.bin')
  marker = path.join(base, 'planted-ran')
  await mkdir(root, { recursive: true })
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root })
  await writeFile(path.join(root, 'a.txt'), 'a\n')
  for (const name of ['bwrap', 'git', 'node', 'env', 'sh']) await plant(planted, name)
  // The workspace's own tool, meant to be run by its commands (from any folder of the tree).
  await writeFile(path.join(planted, 'mytool'), '#!/bin/sh\necho mytool-ran\n')
  chmodSync(path.join(planted, 'mytool'), 0o755)
  await mkdir(path.join(root, 'sub'), { recursive: true })
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe("a workspace's relative PATH entry", () => {
  it("never runs a planted bwrap or git as the user; inside the sandbox it names the tree's folder", async () => {
    const policy: SandboxPolicy = { env: { PATH: `node_modules/.bin:${process.env.PATH}` } }
    const out = await run('cd sub && mytool && git --version', ctx(policy))
    expect(out).toContain('mytool-ran')
    expect(out).toContain('[exit code: 0]')
    // Concord's own git calls (a read without approval, and the calls outside the sandbox) run the real git.
    const status = await gitStatusTool.run(parseArgs(gitStatusTool.args, {}, 'git_status'), ctx(policy))
    expect(status).toContain('a.txt')
    await runOwnGit(root, ['status', '--porcelain'], { env: { PATH: 'node_modules/.bin' } })
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('')
  }, 60_000)
})

describe("Concord's launcher", () => {
  it('is started from the trusted path with a fixed environment: a loader variable reaches only the inside', async () => {
    // A real LD_PRELOAD library that writes the program it was loaded into to H4_MARK.
    const so = path.join(base, 'mark.so')
    const src = path.join(base, 'mark.c')
    await writeFile(
      src,
      `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
  char exe[512]; ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); const char *m = getenv("H4_MARK");
  if (n < 0 || !m) return; exe[n] = 0; FILE *f = fopen(m, "a"); if (f) { fprintf(f, "%s\\n", exe); fclose(f); }
}
`,
    )
    execFileSync('cc', ['-shared', '-fPIC', '-o', so, src])
    const loaded = path.join(root, 'loaded-into')
    // The lowest layer, as if such a variable had got past the refusals (they are tested below).
    const plan = await sandboxedSpawn(['/bin/sh', '-c', 'echo inside=$H4_MARK'], {
      root,
      policy: { scratchDir },
      env: { PATH: 'node_modules/.bin:/usr/bin:/bin', LD_PRELOAD: so, H4_MARK: loaded },
    })
    expect(path.isAbsolute(plan.file)).toBe(true)
    expect(Object.keys(plan.env).sort()).toEqual(['PATH'])
    const r = await runPlan(plan)
    expect(r.out).toContain(`inside=${loaded}`)
    const into = readFileSync(loaded, 'utf8').trim().split('\n')
    expect(into.length).toBeGreaterThan(0) // it did load inside: the test can see a load
    expect(into).not.toContain(plan.file)
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('')
  }, 60_000)

  it("of an ACP agent is found on Concord's own PATH, never on the member's env.PATH", async () => {
    const agentPlanted = path.join(base, 'agent-bin')
    for (const name of ['bwrap', 'node']) await plant(agentPlanted, name)
    const vars = { PATH: `${agentPlanted}:${process.env.PATH}`, HOME: path.join(base, 'agent-home') }
    await mkdir(vars.HOME, { recursive: true })
    const plan = await sandboxedAgentSpawn(
      ['node', '-e', 'console.log("agent " + process.execPath + " " + process.env.PATH.split(":")[0])'],
      vars,
      {
        root,
        writable: [vars.HOME],
        tmp: path.join(base, 'agent-tmp'),
      },
    )
    const r = await runPlan(plan)
    expect(r.code).toBe(0)
    // The real node ran, and the member's PATH still reached it inside.
    expect(r.out).toContain(`agent ${process.execPath} ${agentPlanted}`)
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('')
  }, 60_000)
})

describe('refused variables', () => {
  const refused = [
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'NODE_OPTIONS',
    'BASH_ENV',
    'ENV',
    'PYTHONSTARTUP',
    'PERL5OPT',
    'GIT_SSH',
    'GIT_SSH_COMMAND',
    'GIT_EXEC_PATH',
    'GIT_CONFIG_GLOBAL',
    'GIT_CONFIG_PARAMETERS',
    'GIT_CONFIG_COUNT',
    'GIT_ASKPASS',
    'GIT_EXTERNAL_DIFF',
    'GIT_PAGER',
    'GIT_EDITOR',
    'GIT_PROXY_COMMAND',
    'GIT_TRACE',
    'DEPLOY_KEY',
    'DB_PASSWORD',
    'MYSQL_PWD_PASSWORD',
    'GITHUB_PAT',
    'DATABASE_URL',
    'SSH_AUTH_SOCK',
    'OPENAI_API_KEY',
    'NPM_TOKEN',
    'HOME',
  ]

  it('are refused by name, before anything runs', async () => {
    for (const name of refused) {
      expect(envRefusal(name, 'x'), name).toContain(name)
      try {
        await run('touch refused-ran', ctx({ env: { [name]: 'x' } }))
        throw new Error(`${name} was accepted`)
      } catch (err) {
        expect(err, name).toBeInstanceOf(ToolError)
        expect((err as ToolError).code).toBe('env_refused')
        expect((err as ToolError).message).toContain(name)
      }
    }
    expect(existsSync(path.join(root, 'refused-ran'))).toBe(false)
    expect(envRefusal('REGISTRY', 'https://me:hunter2@registry.example.com/')).toContain('password')
  })

  it('let ordinary variables through', () => {
    expect(() =>
      assertAllowedEnv({
        NODE_ENV: 'test',
        RUST_LOG: 'debug',
        GIT_AUTHOR_NAME: 'Tess',
        PATH: '/opt/tools/bin:/usr/bin',
        REGISTRY: 'https://registry.example.com/',
      }),
    ).not.toThrow()
    expect(os.platform()).toBe('linux')
  })
})
