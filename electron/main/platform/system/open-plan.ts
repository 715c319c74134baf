/**
 * How the desktop app opens a task's tree (tasks.openTree), as data the Electron shell carries out: an editor by the
 * URL its installer registers (shell.openExternal: no program named by a caller, no PATH the GUI app may not have),
 * the file manager by the folder itself (shell.openPath), a terminal by a fixed program per system with the folder as
 * its working directory. Nothing here runs anything, so every platform's plan is testable on any machine.
 */
import { delimiter, join } from 'node:path'
import { existsSync } from 'node:fs'
import type { Editor, OpenTreeIn } from '../../../../shared/schemas'

export type OpenPlan =
  | { kind: 'url'; url: string }
  | { kind: 'path'; path: string }
  | { kind: 'spawn'; command: string; args: string[]; cwd: string }

/** The URL scheme each editor registers; each takes `<scheme>://file/<absolute path>`. */
const editorScheme: Record<Editor, string> = {
  vscode: 'vscode',
  cursor: 'cursor',
  windsurf: 'windsurf',
  vscodium: 'vscodium',
  zed: 'zed',
}

/** `vscode://file/home/me/tree`: the path's segments encoded, its slashes kept (a Windows path gets a leading one). */
export function editorUrl(editor: Editor, path: string): string {
  const slashed = path.replace(/\\/g, '/')
  const encoded = slashed
    .split('/')
    .map((part) => (/^[a-zA-Z]:$/.test(part) ? part : encodeURIComponent(part)))
    .join('/')
  return `${editorScheme[editor]}://file${encoded.startsWith('/') ? '' : '/'}${encoded}`
}

/** Linux terminals in the order tried: the user's $TERMINAL first, then the Debian alternative and the common ones. */
const linuxTerminals = [
  'x-terminal-emulator',
  'gnome-terminal',
  'konsole',
  'xfce4-terminal',
  'alacritty',
  'kitty',
  'xterm',
]

function onPath(command: string, env: NodeJS.ProcessEnv): string | null {
  if (command.includes('/')) return existsSync(command) ? command : null
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command)
  }
  return null
}

/** A terminal in `cwd`, or null when none is found (Linux without any of the known terminals). */
function terminalPlan(cwd: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): OpenPlan | null {
  if (platform === 'darwin') return { kind: 'spawn', command: 'open', args: ['-a', 'Terminal', cwd], cwd }
  // `start` opens the new console in its own working directory: no path on a command line to quote.
  if (platform === 'win32') return { kind: 'spawn', command: 'cmd.exe', args: ['/c', 'start', 'cmd.exe'], cwd }
  for (const name of [env.TERMINAL, ...linuxTerminals]) {
    if (!name) continue
    const found = onPath(name, env)
    if (!found) continue
    // gnome-terminal and konsole hand the window to a running server, which ignores the caller's directory.
    const args = name.endsWith('gnome-terminal')
      ? [`--working-directory=${cwd}`]
      : name.endsWith('konsole')
        ? ['--workdir', cwd]
        : []
    return { kind: 'spawn', command: found, args, cwd }
  }
  return null
}

/** The plan for opening `path` in `where`; null when this system has no way to (the error says what to do). */
export function openPlan(
  path: string,
  where: OpenTreeIn,
  editor: Editor,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): OpenPlan | null {
  if (where === 'editor') return { kind: 'url', url: editorUrl(editor, path) }
  if (where === 'files') return { kind: 'path', path }
  return terminalPlan(path, platform, env)
}
