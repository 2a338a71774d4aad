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

it('a transcript line whose speaker tag is missing (a quoted utterance, or one in angle brackets) is the turn of the other party: the text is still a conversation', () => {
  // MADial-en writes 21 of its 160 dialogues so: the assistant's answer quoted without its tag.
  expect(shapeQuery('<Bart>: "Do you like my outfit?"\n"Wow, it looks great on you!"\n<Bart>: "Really?"')).toEqual([
    { role: 'user', content: 'Do you like my outfit?' },
    { role: 'assistant', content: 'Wow, it looks great on you!' },
    { role: 'user', content: 'Really?' },
  ]);
  expect(shapeQuery('<Lisa>: "I feel like pizza!"\n<Pizza is a great choice! Which flavor?>\n<Lisa>: "Cheese."')).toEqual([
    { role: 'user', content: 'I feel like pizza!' },
    { role: 'assistant', content: 'Pizza is a great choice! Which flavor?' },
    { role: 'user', content: 'Cheese.' },
  ]);
  // An untagged line after an assistant turn is the user's.
  expect(shapeQuery('<Assistant>: "How was school?"\n"Great, I won a prize!"')).toEqual([
    { role: 'assistant', content: 'How was school?' },
    { role: 'user', content: 'Great, I won a prize!' },
  ]);
  // A text that does not open as a transcript stays text.
  expect(shapeQuery('"Quoted first line"\n<Bart>: hello')).toBe('"Quoted first line"\n<Bart>: hello');
});
