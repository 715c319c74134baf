/**
 * Rows → API entities. Ids become routable strings; derived states (link, claim, report validity) are computed in the
 * mappers of each kind of record, collected here.
 */
export * from './record-mappers'
export * from './report-mappers'
export * from './task-mappers'
