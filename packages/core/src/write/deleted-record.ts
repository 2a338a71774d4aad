/** A deleted record: its namespace key and id (what the purge of its copies needs). */
export interface DeletedRecord {
  ns: string;
  id: string;
}
