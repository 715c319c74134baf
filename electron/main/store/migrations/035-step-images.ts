/**
 * Images in prompts (issue 35): the images the human sent with a message, kept with its step.
 *
 * - step_images: one row an image, in the order they were sent (idx from 0), the bytes as they came (BLOB). Gone with
 *   its step (a queued message taken back).
 * - steps.images: how many the step carries, so that a page of steps says so without reading the bytes.
 */
export const up = `
CREATE TABLE step_images (
  step_id INTEGER NOT NULL REFERENCES steps(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  media_type TEXT NOT NULL CHECK (media_type IN ('image/png','image/jpeg','image/gif','image/webp')),
  data BLOB NOT NULL,
  PRIMARY KEY (step_id, idx)
) STRICT;
ALTER TABLE steps ADD COLUMN images INTEGER NOT NULL DEFAULT 0;
`
