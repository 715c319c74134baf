import { existsSync, readFileSync, writeFileSync } from 'node:fs'

export interface WindowState {
  x?: number
  y?: number
  width: number
  height: number
  maximized: boolean
}

const fallback: WindowState = { width: 1400, height: 900, maximized: false }

export function loadWindowState(file: string): WindowState {
  try {
    if (!existsSync(file)) return fallback
    const s = JSON.parse(readFileSync(file, 'utf8')) as Partial<WindowState>
    if (typeof s.width !== 'number' || typeof s.height !== 'number') return fallback
    return { ...fallback, ...s }
  } catch {
    return fallback
  }
}

export function saveWindowState(file: string, state: WindowState): void {
  try {
    writeFileSync(file, JSON.stringify(state))
  } catch {
    // Losing the window position is not worth failing a quit over.
  }
}
