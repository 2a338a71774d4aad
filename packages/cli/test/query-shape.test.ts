import { expect, it } from 'vitest';
import { shapeQuery } from '../src/eval/query-shape.ts';

it('turns a transcript into a conversation, the assistant by name, everyone else the user', () => {
  expect(shapeQuery('<Bart>: "I will perform a magic trick!"\n<Assistant>: "Fantastic!"\n<Bart>: "What should I wear?"')).toEqual([
    { role: 'user', content: 'I will perform a magic trick!' },
    { role: 'assistant', content: 'Fantastic!' },
    { role: 'user', content: 'What should I wear?' },
  ]);
  expect(shapeQuery('<小明>: “我很紧张”\n<Assistant>: “别担心”')).toEqual([
    { role: 'user', content: '我很紧张' },
    { role: 'assistant', content: '别担心' },
  ]);
});

it('leaves plain questions and mixed text alone', () => {
  expect(shapeQuery('How long did I wait for the new phone?')).toBe('How long did I wait for the new phone?');
  expect(shapeQuery('<Bart>: hello\nnot a transcript line')).toBe('<Bart>: hello\nnot a transcript line');
  expect(shapeQuery('<Bart>: just one line')).toBe('<Bart>: just one line');
});
