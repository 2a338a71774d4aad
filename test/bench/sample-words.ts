/** Everyday English words the bundled static model knows, for reproducible benchmark texts (embed-speed, mcp-first-search). */
export const SAMPLE_WORDS = (
  'customer prefers phone calls after six order shipped late charging port loose refund approved warranty extended battery replaced ' +
  'screen cracked meeting moved to friday the team agreed on a new budget for the project manager asked about travel plans hotel ' +
  'booked near the airport flight delayed by two hours doctor appointment next week my daughter started school in september we ' +
  'planted tomatoes in the garden car needs new tires insurance renewal due in march favorite restaurant serves italian food ' +
  'allergic to peanuts likes jazz music and long walks moved to a new apartment downtown works as a nurse at the hospital'
).split(' ');
