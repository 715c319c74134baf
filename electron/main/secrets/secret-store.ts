import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** Optional at-rest encryption (Electron's safeStorage); identity under plain Node, where the file is 0600. */
export interface SecretCipher {
  encrypt(plain: string): string
  decrypt(stored: string): string
}

/**
 * API keys, kept in the main process only. Never returned by the API, never logged, never exported:
 * members only show `hasKey`.
 */
export class SecretStore {
  private readonly values = new Map<string, string>()

  constructor(
    private readonly file: string,
    private readonly cipher: SecretCipher = { encrypt: (s) => s, decrypt: (s) => s },
  ) {
    if (existsSync(file)) {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>
      for (const [k, v] of Object.entries(raw)) this.values.set(k, cipher.decrypt(v))
    }
  }

  get(ref: string): string | undefined {
    return this.values.get(ref)
  }

  has(ref: string): boolean {
    return this.values.has(ref)
  }

  set(ref: string, value: string | null): void {
    if (value === null) this.values.delete(ref)
    else this.values.set(ref, value)
    this.save()
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true })
    const out: Record<string, string> = {}
    for (const [k, v] of this.values) out[k] = this.cipher.encrypt(v)
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, JSON.stringify(out), { mode: 0o600 })
    chmodSync(tmp, 0o600)
    renameSync(tmp, this.file)
  }
}
