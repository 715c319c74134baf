/** Private-use characters around a match in SearchHit.snippet (never in what people or models write). Kept apart from schemas.ts so the renderer reads them without zod. */
export const SEARCH_MARK_START = '\uE000'
export const SEARCH_MARK_END = '\uE001'
