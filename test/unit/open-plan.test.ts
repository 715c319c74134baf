/** How the desktop app opens a task's tree on each system (electron/main/system/open-plan.ts): plans, not processes. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { editorUrl, openPlan } from '../../electron/main/platform/system/open-plan'

let bin: string | null = null
afterEach(() => {
  if (bin) rmSync(bin, { recursive: true, force: true })
  bin = null
})
/** A PATH folder holding empty executables of these names. */
function pathWith(...names: string[]): string {
  bin = mkdtempSync(join(tmpdir(), 'concord-bin-'))
  for (const n of names) {
    writeFileSync(join(bin, n), '#!/bin/sh\n')
    chmodSync(join(bin, n), 0o755)
  }
  return bin
}

describe('opening a tree', () => {
  it('opens an editor by its URL, the path encoded segment by segment', () => {
    expect(editorUrl('vscode', '/home/me/data/worktrees/w1/T-1')).toBe('vscode://file/home/me/data/worktrees/w1/T-1')
    expect(editorUrl('cursor', '/tmp/a b/#1')).toBe('cursor://file/tmp/a%20b/%231')
    expect(editorUrl('zed', 'C:\\Users\\me\\T-1')).toBe('zed://file/C:/Users/me/T-1')
    expect(openPlan('/t', 'editor', 'windsurf', 'linux', {})).toEqual({ kind: 'url', url: 'windsurf://file/t' })
  })

  it('opens the file manager on the folder itself', () => {
    expect(openPlan('/t', 'files', 'vscode', 'darwin', {})).toEqual({ kind: 'path', path: '/t' })
  })

  it('opens a terminal in the tree: Terminal on macOS, a console on Windows, the first one found on Linux', () => {
    expect(openPlan('/t', 'terminal', 'vscode', 'darwin', {})).toEqual({
      kind: 'spawn',
      command: 'open',
      args: ['-a', 'Terminal', '/t'],
      cwd: '/t',
    })
    expect(openPlan('C:\\t', 'terminal', 'vscode', 'win32', {})).toMatchObject({ command: 'cmd.exe', cwd: 'C:\\t' })
    const path = pathWith('gnome-terminal', 'xterm')
    expect(openPlan('/t', 'terminal', 'vscode', 'linux', { PATH: path })).toEqual({
      kind: 'spawn',
      command: join(path, 'gnome-terminal'),
      args: ['--working-directory=/t'],
      cwd: '/t',
    })
    // $TERMINAL first, when it is there.
    expect(openPlan('/t', 'terminal', 'vscode', 'linux', { PATH: path, TERMINAL: 'xterm' })).toMatchObject({
      command: join(path, 'xterm'),
      args: [],
    })
  })

  it('has no plan for a terminal on a Linux without any known one', () => {
    expect(openPlan('/t', 'terminal', 'vscode', 'linux', { PATH: pathWith() })).toBeNull()
  })
})
