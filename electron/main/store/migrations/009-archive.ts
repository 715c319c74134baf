/** Schema v09: reserved for W (archive and restore); filled in by that change. */
export const up = ``
