/**
 * `@zeromem/core`: durable, namespaced, validated memory for LLM agents, with zero LLM
 * calls. Open one with {@link openMemory}; every verb is a method of {@link Memory}.
 * (`@zeromem/core/internal` is for zeromem's own packages, not for applications.)
 *
 * @packageDocumentation
 */
export * from './api.ts';
export { openMemory } from './open-memory.ts';
