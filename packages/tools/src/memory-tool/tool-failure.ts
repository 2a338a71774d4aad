/**
 * A command that cannot run as asked, with the text the model reads to correct its call
 * (Anthropic's documented wording where it has one). Nothing was written. `execute`
 * returns the text instead of throwing.
 */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}
