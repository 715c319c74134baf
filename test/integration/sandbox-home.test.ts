/**
 * The user's home is deny-by-default inside the sandbox: a command (and an external agent) sees an empty home but for
 * the install roots of the programs on its PATH that live there, the user's git config and (an agent) its own state
 * folders; the credentials of the user's other tools (Claude Code, Codex, Gemini CLI, ...) are not there. The test
 * process's HOME is a temporary folder outside /tmp (os.homedir() follows HOME), with those files planted in it.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommandTool } from '../../electron/main/runtime/tools/command-tool'
import { parseArgs } from '../../electron/main/runtime/tools/tool-helpers'
import { sandboxedAgentSpawn } from '../../electron/main/platform/sandbox/agent-spawn'
import type { ToolContext } from '../../electron/main/runtime/tools/types'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'

let home: string
let root: string
let scratchDir: string
const saved = { HOME: process.env.HOME, PATH: process.env.PATH }

/** Credentials of the user's other tools, and a plain file: none of them may be read by a command. */
const CREDENTIALS: Record<string, string> = {
  '.claude/.credentials.json': '{"claudeAiOauth":{"accessToken":"sk-ant-oat-leak"}}',
  '.claude.json': '{"oauthAccount":"leak@example.com"}',
  '.codex/auth.json': '{"OPENAI_API_KEY":"sk-codex-leak"}',
  '.gemini/oauth_creds.json': '{"refresh_token":"gemini-leak"}',
  '.config/gh/hosts.yml': 'oauth_token: gho_leak',
  '.local/share/keyrings/login.keyring': 'keyring-leak',
  '.cargo/credentials.toml': 'token = "cargo-leak"',
  'notes.txt': 'private-notes-leak',
}

const ctx = (): ToolContext => ({ workspaceRoot: root, signal: new AbortController().signal, sandbox: { scratchDir } })
const run = (command: string): Promise<string> =>
  runCommandTool.run(parseArgs(runCommandTool.args, { command }, 'run_command'), ctx())

async function script(file: string, body: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
}

fileNeedsSandbox()

beforeAll(async () => {
  // Outside /tmp, so that the sandbox's private /tmp is not what hides it.
  home = await realpath(await mkdtemp(path.join('/var/tmp', 'concord-home-')))
  for (const [rel, content] of Object.entries(CREDENTIALS)) {
    await mkdir(path.dirname(path.join(home, rel)), { recursive: true })
    await writeFile(path.join(home, rel), `${content}\n`)
  }
  await writeFile(path.join(home, '.gitconfig'), '[user]\n\tname = Home Tester\n\temail = tester@example.com\n')
  // Toolchains installed in the home, as nvm, pyenv, cargo and pip --user do: a program that reads its install root.
  await script(path.join(home, '.tool/versions/1/bin/hello'), `cat "$(dirname "$0")/../share/greeting.txt"`)
  await mkdir(path.join(home, '.tool/versions/1/share'), { recursive: true })
  await writeFile(path.join(home, '.tool/versions/1/share/greeting.txt'), 'hello-from-home-toolchain\n')
  await script(path.join(home, '.cargo/bin/cargo-ish'), 'echo cargo-ran')
  await script(path.join(home, '.local/bin/pip-tool'), 'echo pip-tool-ran')
  // pipx: a link in ~/.local/bin into a venv under ~/.local/share, whose library the program reads.
  const venv = path.join(home, '.local/share/pipx/venvs/tool')
  await script(path.join(venv, 'bin/venv-tool'), `cat ${venv}/lib/data.txt`)
  await mkdir(path.join(venv, 'lib'), { recursive: true })
  await writeFile(path.join(venv, 'lib/data.txt'), 'venv-tool-ran\n')
  await symlink(path.join(venv, 'bin/venv-tool'), path.join(home, '.local/bin/venv-tool'))
  // The tree itself may be in the home.
  root = path.join(home, 'projects', 'app')
  await mkdir(root, { recursive: true })
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root })
  await writeFile(path.join(root, 'a.txt'), 'a\n')
  scratchDir = path.join(home, '.concord-data', 'scratch', 'm1')
  process.env.HOME = home
  process.env.PATH = [
    path.join(home, '.tool/versions/1/bin'),
    path.join(home, '.cargo/bin'),
    path.join(home, '.local/bin'),
    saved.PATH,
  ].join(':')
})

afterAll(async () => {
  process.env.HOME = saved.HOME
  process.env.PATH = saved.PATH
  await rm(home, { recursive: true, force: true })
})

describe("a command's home", () => {
  it("shows none of the user's other tools' credentials, nor any other file of the home", async () => {
    const out = await run(
      Object.keys(CREDENTIALS)
        .map((rel) => `cat ${home}/${rel} 2>/dev/null || echo hidden:${rel}`)
        .join('; ') + `; echo "home:[$(ls -A ${home} | tr '\\n' ' ')]"`,
    )
    for (const [rel, content] of Object.entries(CREDENTIALS)) {
      expect(out).toContain(`hidden:${rel}`)
      expect(out).not.toContain(content)
    }
    // What is there: the shown install roots, the git config, the tree's parents, the scratch folder's parents.
    const listed = /home:\[(.*)\]/.exec(out)?.[1]?.trim().split(' ').sort()
    expect(listed).toEqual(['.cargo', '.concord-data', '.gitconfig', '.local', '.tool', 'projects'])
  }, 60_000)

  it('still runs the programs on PATH that live in the home, node, git with the user identity and python3, and writes the tree', async () => {
    const out = await run(
      'hello && cargo-ish && pip-tool && venv-tool && node -e "console.log(\'node-ok\')" && python3 -c "print(\'python-ok\')" && git config user.name && git status --short && touch made.txt && echo wrote',
    )
    expect(out).toContain('hello-from-home-toolchain')
    expect(out).toContain('cargo-ran')
    expect(out).toContain('pip-tool-ran')
    expect(out).toContain('venv-tool-ran')
    expect(out).toContain('node-ok')
    expect(out).toContain('python-ok')
    expect(out).toContain('Home Tester')
    expect(out).toContain('wrote')
    expect(out).toContain('[exit code: 0]')
  }, 60_000)

  it('shows the install roots read-only', async () => {
    const out = await run(
      `touch ${home}/.tool/versions/1/bin/planted 2>&1 || echo refused; echo x >> ${home}/.gitconfig || echo gitconfig=refused`,
    )
    expect(out).toContain('refused')
    expect(out).toContain('gitconfig=refused')
  }, 60_000)
})

describe("an ACP agent's home", () => {
  it('is empty but for its own state folder, its program and the git config', async () => {
    const probe = Object.keys(CREDENTIALS)
      .map(
        (rel) =>
          `try { require('fs').readFileSync(${JSON.stringify(path.join(home, rel))}); console.log('read:${rel}') } catch { console.log('hidden:${rel}') }`,
      )
      .join(';')
    const argv: [string, ...string[]] = [
      process.execPath,
      '-e',
      `${probe}; console.log('git:' + require('fs').readFileSync(${JSON.stringify(path.join(home, '.gitconfig'))}, 'utf8').includes('Home Tester'))`,
    ]
    const plan = await sandboxedAgentSpawn(
      argv,
      { PATH: process.env.PATH!, HOME: home },
      { root, writable: [path.join(home, '.claude'), path.join(home, '.claude.json')], tmp: path.join(home, 'tmp') },
    )
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, stdio: ['ignore', 'pipe', 'pipe'] })
      let text = ''
      child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')))
      child.stderr.on('data', (c: Buffer) => (text += c.toString('utf8')))
      child.on('error', reject)
      child.on('close', () => resolve(text))
    })
    // Claude Code's own state is the agent's (it runs as the user's login); the other tools' are not.
    expect(out).toContain('read:.claude/.credentials.json')
    expect(out).toContain('read:.claude.json')
    for (const rel of Object.keys(CREDENTIALS).filter((r) => !r.startsWith('.claude')))
      expect(out).toContain(`hidden:${rel}`)
    expect(out).toContain('git:true')
  }, 60_000)
})
