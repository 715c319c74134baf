/** The images a message step carries (issue 35, migration 035): written with the step, read for its turn and the UI. */
import type { ImageMediaType } from '../../../shared/images'
import type { Db } from './connection'

/** One image of a step, its bytes as they were sent. */
export interface StepImageRow {
  media_type: ImageMediaType
  data: Buffer
}

export class StepImagesRepo {
  private readonly s

  constructor(private readonly db: Db) {
    this.s = {
      insert: db.prepare('INSERT INTO step_images (step_id, idx, media_type, data) VALUES (?, ?, ?, ?)'),
      count: db.prepare('UPDATE steps SET images = ? WHERE id = ?'),
      of: db.prepare<[number], StepImageRow>('SELECT media_type, data FROM step_images WHERE step_id = ? ORDER BY idx'),
      copy: db.prepare(
        'INSERT INTO step_images (step_id, idx, media_type, data) SELECT ?, idx, media_type, data FROM step_images WHERE step_id = ?',
      ),
      one: db.prepare<[number, number], StepImageRow>(
        'SELECT media_type, data FROM step_images WHERE step_id = ? AND idx = ?',
      ),
    }
  }

  /** Keeps the images with the step (in one transaction with its count on the step). */
  add(stepId: number, images: StepImageRow[]): void {
    if (!images.length) return
    this.db.transaction(() => {
      images.forEach((img, i) => this.s.insert.run(stepId, i, img.media_type, img.data))
      this.s.count.run(images.length, stepId)
    })()
  }

  /** The same images on another step (a failed turn's message queued again). */
  copy(fromStepId: number, toStepId: number): void {
    const n = this.s.copy.run(toStepId, fromStepId).changes
    if (n) this.s.count.run(n, toStepId)
  }

  of(stepId: number): StepImageRow[] {
    return this.s.of.all(stepId)
  }

  get(stepId: number, index: number): StepImageRow | undefined {
    return this.s.one.get(stepId, index)
  }
}
