/** Schema v08: reserved for R1 (maintained counters, claim pin index, impact paging); filled in by that change. */
export const up = ``
