import { at } from './at'
/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same scenarios and the same timings on
 * every machine. Math.random is never used by the experiment.
 */
export class Prng {
  private state: number

  constructor(...seeds: number[]) {
    // Mix every part of the seed (the run's seed, the scenario's number, a purpose) into one 32-bit state.
    let h = 0x9e3779b9
    for (const s of seeds) h = Math.imul(h ^ (s >>> 0), 0x85ebca6b) ^ (h >>> 13)
    this.state = h >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    return at(items, this.int(0, items.length - 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  /** The items in a new random order. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items]
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i)
      ;[out[i], out[j]] = [at(out, j), at(out, i)]
    }
    return out
  }
}
