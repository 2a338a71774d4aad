/** The extension APIs the benchmark extension calls. */
declare namespace chrome {
  namespace offscreen {
    function createDocument(parameters: { url: string; reasons: string[]; justification: string }): Promise<void>;
    function closeDocument(): Promise<void>;
  }
}
