/** Schema v10: reserved for W (FTS5 over step text); filled in by that change. */
export const up = ``
