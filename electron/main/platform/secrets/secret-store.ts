import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs'
import { basename, dirname } from 'node:path'
import { ApiError } from '../../../../shared/errors'
import { tightenFile } from '../data-dir'
import { storageFault } from '../faults'

/**
 * How keys are kept at rest. Electron passes safeStorage (encrypted: true); everywhere else the file
 * holds them in plain text and says so (encrypted: false): never plain text presented as encrypted.
 */
export interface SecretCipher {
  /** True only when `encrypt` really encrypts (a system keychain), not when it encodes. */
  encrypted: boolean
  /** Where keys live, for a person: "encrypted with the system keychain (…)". Never a path. */
  description: string
  encrypt(plain: string): string
  decrypt(stored: string): string
}

export const plainCipher: SecretCipher = {
  encrypted: false,
  description: 'in a 0600 file in the data folder, not encrypted',
  encrypt: (s) => s,
  decrypt: (s) => s,
}

/**
 * API keys, kept in the main process only. Never returned by the API, never logged, never exported:
 * members only show `hasKey`. The file (mode 0600) is replaced atomically; memory changes only after
 * the file did, so what `has` says is what a restart finds.
 */
export class SecretStore {
  private values = new Map<string, string>()

  constructor(
    private readonly file: string,
    private readonly cipher: SecretCipher = plainCipher,
  ) {
    if (!existsSync(file)) return
    tightenFile(file)
    const broken = (why: string) =>
      new ApiError(
        'storage_corrupt',
        `The secrets file ${file} ${why}. Move it aside (the members' API keys in it must then be entered again) or restore it from a backup, and start Concord again.`,
      )
    let raw: unknown
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'))
    } catch (err) {
      // Never echo the parser's message: it quotes the file, and the file holds keys.
      if (err instanceof SyntaxError) throw broken('is not valid JSON')
      throw storageFault(err, `The secrets file ${file}`, file) ?? err
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw broken('is not a JSON object')
    for (const [k, v] of Object.entries(raw)) {
      if (typeof v !== 'string') throw broken(`has a value for ${k} that is not a string`)
      try {
        this.values.set(k, cipher.decrypt(v))
      } catch {
        throw broken(`has a key (${k}) that cannot be decrypted here (written with another keychain or machine?)`)
      }
    }
  }

  /** Where and how the keys are kept (system.info). */
  get protection(): { encrypted: boolean; description: string } {
    return { encrypted: this.cipher.encrypted, description: this.cipher.description }
  }

  get(ref: string): string | undefined {
    return this.values.get(ref)
  }

  has(ref: string): boolean {
    return this.values.has(ref)
  }

  /** Sets (or with null removes) one key. Throws a named fault when the file cannot be written; nothing changed then. */
  set(ref: string, value: string | null): void {
    if (value === null ? !this.values.has(ref) : this.values.get(ref) === value) return
    const next = new Map(this.values)
    if (value === null) next.delete(ref)
    else next.set(ref, value)
    this.save(next)
    this.values = next
  }

  private save(values: Map<string, string>): void {
    const out: Record<string, string> = {}
    for (const [k, v] of values) out[k] = this.cipher.encrypt(v)
    const tmp = `${this.file}.tmp`
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 })
      // O_NOFOLLOW: a planted symlink must not redirect the keys; fchmod before writing: a stale tmp keeps its old mode otherwise.
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600)
      try {
        fchmodSync(fd, 0o600)
        writeSync(fd, JSON.stringify(out))
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(tmp, this.file)
    } catch (err) {
      const name = basename(this.file)
      const subject = `Cannot save the API key in ${name} (data folder)`
      throw (
        storageFault(err, subject, `${name} and ${basename(tmp)} beside it`) ??
        new ApiError('io_error', `${subject}: ${(err as Error | undefined)?.name ?? String(err)}`)
      )
    }
  }
}
