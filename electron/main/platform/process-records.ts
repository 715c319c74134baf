/**
 * Recognising a process after a crash: the start time recorded with a process's pid, and killing a recorded process
 * group only while its leader is still the process that was recorded (a reused pid is left alone).
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { TRUSTED_PATH } from './command-env'
import type { ProcessInfo } from './sandbox-policy'
import { spawnOffLoop } from './spawner'

/**
 * When the process started, as recorded in onProcess: /proc/<pid>/stat field 22 (clock ticks since boot) on Linux,
 * `ps -o lstart=` elsewhere. Undefined when the process is gone. A reused pid has another start time. Outside Linux
 * this runs `ps` synchronously: only for start-up work (the data folder's lock, crash recovery); a turn records its
 * processes with recordProcess, which asks `ps` off the loop.
 */
export function processStartTime(pid: number): string | undefined {
  if (process.platform === 'linux') return procStat(pid)?.startTime
  try {
    return execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

function procStat(pid: number | string): { zombie: boolean; pgrp: number; startTime: string } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may itself contain spaces and parentheses.
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ')
    return { zombie: rest[0] === 'Z', pgrp: Number(rest[2]), startTime: rest[19] ?? '' }
  } catch {
    return undefined
  }
}

export type KillRecordedResult = 'killed' | 'gone' | 'different_process' | 'unverifiable'

/**
 * After a crash: SIGKILLs the process group Concord recorded for a command, only if it is still that command's. The
 * leader must have the recorded start time (a reused pid has another). If the leader is gone, members of the group
 * that started after it are still the command's: a pid cannot be reused while its process group exists. Without a
 * recorded start time nothing is killed.
 */
export function killRecordedGroup(pid: number, pgid: number, startTime?: string): KillRecordedResult {
  if (startTime === undefined) return 'unverifiable'
  if (process.platform === 'linux' && !/^\d+$/.test(startTime)) return 'unverifiable'
  const leader = process.platform === 'linux' ? procStat(pid) : undefined
  const now = process.platform === 'linux' ? leader?.startTime : processStartTime(pid)
  if (now !== undefined && now !== startTime) return 'different_process'
  if (now === undefined || leader?.zombie) {
    if (process.platform !== 'linux') return 'gone'
    const members = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map((d) => procStat(d))
      .filter((s) => s !== undefined && !s.zombie && s.pgrp === pgid && BigInt(s.startTime) >= BigInt(startTime))
    if (members.length === 0) return 'gone'
  }
  try {
    process.kill(-pgid, 'SIGKILL')
    return 'killed'
  } catch {
    return 'gone'
  }
}

/**
 * Tells the runtime about a command process that just started in its own process group (pgid = pid), with its start
 * time; returns the function to call when it has ended. A no-op without onProcess.
 */
export function recordProcess(
  pid: number | undefined,
  onProcess: ((info: ProcessInfo) => () => void) | undefined,
): () => void {
  if (!onProcess || !pid) return () => {}
  let ended = false
  let end: (() => void) | undefined
  const record = (startTime: string | undefined): void => {
    if (!ended) end = onProcess({ pid, pgid: pid, startTime })
  }
  if (process.platform === 'linux') record(procStat(pid)?.startTime)
  else void psStartTime(pid).then(record)
  return () => {
    if (ended) return
    ended = true
    end?.()
  }
}

/** `ps -o lstart=` off the event loop (a process that ended meanwhile needs no record). */
function psStartTime(pid: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawnOffLoop('/bin/ps', ['-o', 'lstart=', '-p', String(pid)], { env: { PATH: TRUSTED_PATH } })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.on('error', () => resolve(undefined))
    child.on('close', (code) => resolve(code === 0 ? out.trim() || undefined : undefined))
  })
}
