// What recall reads from a query besides its words: time, speaker, focus.

/** A span of time a query speaks of ("last Saturday", "two months ago", 上周), in epoch ms. */
export interface TimeWindow {
  /** The words of the query it was read from. */
  text: string;
  from: number;
  to: number;
}

/**
 * What a query says beyond its words, read once per recall from its last user text:
 * whether the user speaks of themself, which time windows it names, which words it asks
 * about. Each becomes a soft factor on a memory's score (never a filter).
 */
export interface QuerySignals {
  /** The query speaks in the first person: the user's own statements are preferred. */
  firstPerson: boolean;
  /** Time windows named in the query, relative to the recall's `now`. */
  timeWindows: TimeWindow[];
  /** The words a question asks about ("which courier" -> courier). */
  focus: string[];
}
