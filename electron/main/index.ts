/** Electron entry: hosts the core, opens one locked-down window, binds IPC. Thin on purpose. */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, safeStorage, session, shell } from 'electron'
import { createCore, type Core } from './core'
import { plainCipher, type SecretCipher } from './platform/secrets/secret-store'
import { resolveDataDir } from './platform/data-dir'
import { bindIpc } from './transport/ipc'
import { runtimePaths } from './platform/paths'
import { noSandboxNotice } from './shell/sandbox-notice'
import { loadWindowState, saveWindowState } from './shell/window-state'
import { openPlan } from './platform/system/open-plan'
import { ApiError } from '../../shared/errors'
import type { Editor, OpenTreeIn } from '../../shared/schemas'

const dataDirFlag = process.argv.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length)
const dataDir = dataDirFlag || process.env.CONCORD_DATA_DIR ? resolveDataDir(dataDirFlag) : app.getPath('userData')
const rendererUrl = process.env.ELECTRON_RENDERER_URL
const paths = runtimePaths()

let core: Core | null = null
let win: BrowserWindow | null = null

/**
 * safeStorage when a keychain really backs it. On Linux without Secret Service or KWallet, Chromium's
 * `basic_text` backend encrypts with a fixed password: that is not encryption, so keys then go into
 * the 0600 file and system.info says plainly that they are not encrypted.
 */
function keyCipher(): SecretCipher {
  const basicText = process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text'
  if (!safeStorage.isEncryptionAvailable() || basicText) {
    return { ...plainCipher, description: `${plainCipher.description} (no system keychain is available)` }
  }
  return {
    encrypted: true,
    description: 'encrypted with the system keychain (Electron safeStorage)',
    encrypt: (s) => safeStorage.encryptString(s).toString('base64'),
    decrypt: (s) => safeStorage.decryptString(Buffer.from(s, 'base64')),
  }
}

function isOurPage(url: string): boolean {
  if (rendererUrl) return url.startsWith(rendererUrl)
  try {
    return (
      new URL(url).protocol === 'file:' && decodeURIComponent(new URL(url).pathname).endsWith('/renderer/index.html')
    )
  } catch {
    return false
  }
}

function createWindow(): void {
  const stateFile = join(dataDir, 'window-state.json')
  const state = loadWindowState(stateFile)
  win = new BrowserWindow({
    ...state,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Concord',
    webPreferences: {
      preload: paths.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  })
  if (state.maximized) win.maximize()
  win.once('ready-to-show', () => win?.show())
  win.on('close', () => {
    if (!win) return
    saveWindowState(stateFile, { ...win.getNormalBounds(), maximized: win.isMaximized() })
  })
  win.webContents.on('will-navigate', (event, url) => {
    if (!isOurPage(url)) event.preventDefault()
  })
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  if (rendererUrl) void win.loadURL(rendererUrl)
  else void win.loadFile(paths.rendererIndex)
}

/** tasks.openTree in the desktop app: the plan (system/open-plan.ts) carried out by Electron's shell. */
async function openTree(path: string, where: OpenTreeIn, editor: Editor): Promise<void> {
  const plan = openPlan(path, where, editor)
  if (!plan)
    throw new ApiError(
      'unsupported',
      `No terminal was found (set $TERMINAL, or install x-terminal-emulator, gnome-terminal, konsole or xterm); the tree is at ${path}`,
      { path },
    )
  if (plan.kind === 'url') return shell.openExternal(plan.url)
  if (plan.kind === 'path') {
    const failed = await shell.openPath(plan.path)
    if (failed) throw new ApiError('io_error', `The file manager could not open ${path}: ${failed}`, { path })
    return
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn(plan.command, plan.args, { cwd: plan.cwd, detached: true, stdio: 'ignore' })
    child.once('error', (err) =>
      reject(
        new ApiError('io_error', `${plan.command} did not start: ${err.message}; the tree is at ${path}`, { path }),
      ),
    )
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
  })
}

function buildMenu(): void {
  const template: Electron.MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ]
  Menu.setApplicationMenu(Menu.buildFromTemplate(template))
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore()
      win.focus()
    }
  })

  void app.whenReady().then(() => {
    const nativeBinding = paths.electronSqlite
    try {
      core = createCore({
        dataDir,
        nativeBinding: existsSync(nativeBinding) ? nativeBinding : undefined,
        cipher: keyCipher(),
        pickFolder: async (title) => {
          const options = {
            title: title ?? 'Choose a repository folder',
            properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[],
          }
          const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options)
          return r.canceled ? null : (r.filePaths[0] ?? null)
        },
        notify: (title, body) => {
          if (!Notification.isSupported()) return false
          const note = new Notification({ title, body })
          // A click brings the window back to the member waiting.
          note.on('click', () => {
            if (!win) return
            if (win.isMinimized()) win.restore()
            win.show()
            win.focus()
          })
          note.show()
          return true
        },
        openTree,
      })
    } catch (err) {
      // A damaged registry or secrets file: say which and what to do, not a stack trace.
      dialog.showErrorBox('Concord cannot start', (err as Error).message ?? String(err))
      app.exit(1)
      return
    }
    void noSandboxNotice().then((line) => {
      if (!line) return
      console.error(line)
      core?.log.warn({}, line)
    })
    session.defaultSession.setPermissionRequestHandler((_wc, permission, cb) => cb(permission === 'notifications'))
    bindIpc(
      ipcMain,
      core,
      (event) =>
        event.sender === win?.webContents && event.senderFrame?.parent === null && isOurPage(event.senderFrame.url),
      () => win?.webContents ?? null,
    )
    buildMenu()
    createWindow()
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow()
    })
  })

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('will-quit', () => {
    void core?.close()
  })
}
