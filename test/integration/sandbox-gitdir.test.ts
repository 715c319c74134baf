/**
 * A shared checkout's `.git` inside the sandbox (SandboxPolicy.userCheckout): read-only to a command and to an ACP
 * agent, whether it is a folder or the `.git` file of a linked worktree (whose `gitdir:` would otherwise be rewritten);
 * writable only for Concord's own commit (writableGitDir). The runtime's side (a shared workspace sets it, git_commit
 * still commits) is in runtime-sandbox.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxedAgentSpawn } from '../../electron/main/platform/sandbox/agent-spawn'
import { sandboxedSpawn, type SandboxedSpawn } from '../../electron/main/platform/sandbox/spawn'
import { fileNeedsSandbox } from '../fixtures/sandbox-gate'

let base: string
let repo: string
let linked: string
let scratchDir: string

function runPlan(plan: SandboxedSpawn): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.on('error', reject)
    child.on('close', () => resolve(out))
  })
}

const ATTACK = `echo hook > .git/hooks/post-checkout && echo hook=planted; echo '[core]' >> .git/config && echo config=planted; echo 'gitdir: /elsewhere' > .git && echo gitfile=rewritten; touch work.txt && echo tree=writable`

fileNeedsSandbox()

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join('/var/tmp', 'concord-gitdir-')))
  repo = path.join(base, 'repo')
  linked = path.join(base, 'linked')
  scratchDir = path.join(base, 'scratch')
  await mkdir(repo)
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo })
  git('init', '-q', '-b', 'main')
  await writeFile(path.join(repo, 'a.txt'), 'a\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'first')
  // The user's checkout may itself be a linked worktree: its .git is a file naming the git folder.
  git('worktree', 'add', '-q', linked, '-b', 'side')
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe("a shared checkout's .git", () => {
  it('is read-only to a command, and the tree around it writable', async () => {
    const out = await runPlan(
      await sandboxedSpawn(['/bin/sh', '-c', ATTACK], { root: repo, policy: { scratchDir, userCheckout: true } }),
    )
    expect(out).not.toMatch(/=planted|=rewritten/)
    expect(out).toContain('tree=writable')
    expect(existsSync(path.join(repo, '.git', 'hooks', 'post-checkout'))).toBe(false)
  })

  it("is read-only when it is a linked worktree's .git file: its gitdir: cannot be rewritten", async () => {
    const before = readFileSync(path.join(linked, '.git'), 'utf8')
    const out = await runPlan(
      await sandboxedSpawn(['/bin/sh', '-c', ATTACK], { root: linked, policy: { scratchDir, userCheckout: true } }),
    )
    expect(out).not.toContain('gitfile=rewritten')
    expect(out).toContain('tree=writable')
    expect(readFileSync(path.join(linked, '.git'), 'utf8')).toBe(before)
  })

  it("is writable for Concord's own commit only (writableGitDir), and without userCheckout (a task's own repository)", async () => {
    const own = await runPlan(
      await sandboxedSpawn(['/bin/sh', '-c', 'touch .git/own-commit && echo own=wrote'], {
        root: repo,
        policy: { scratchDir, userCheckout: true },
        writableGitDir: true,
      }),
    )
    expect(own).toContain('own=wrote')
    const task = await runPlan(
      await sandboxedSpawn(['/bin/sh', '-c', 'touch .git/task-repo && echo task=wrote'], {
        root: repo,
        policy: { scratchDir },
      }),
    )
    expect(task).toContain('task=wrote')
  })

  it('is read-only to an ACP agent working in the shared checkout', async () => {
    const plan = await sandboxedAgentSpawn(
      ['/bin/sh', '-c', ATTACK],
      { PATH: '/usr/bin:/bin' },
      { root: repo, writable: [], tmp: path.join(base, 'tmp'), userCheckout: true },
    )
    const out = await runPlan(plan)
    expect(out).not.toMatch(/=planted|=rewritten/)
    expect(out).toContain('tree=writable')
  })
})
