/** Schema v11: reserved for U (automatic turns, started-by); filled in by that change. */
export const up = ``
