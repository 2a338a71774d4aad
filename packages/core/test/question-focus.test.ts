import { describe, expect, it } from 'vitest';
import { questionFocus } from '../src/rank/question-focus.ts';

describe('question focus', () => {
  it('takes the words a question asks about, in English and Chinese', () => {
    expect(questionFocus('What kitchen appliance did I buy 10 days ago?')).toEqual(['kitchen', 'appliance']);
    expect(questionFocus('What type of camera lens did I buy?')).toEqual(['camera', 'lens']);
    expect(questionFocus('Which book did I finish a week ago?')).toEqual(['book']);
    expect(questionFocus('用户喜欢哪家快递')).toEqual(['快递']);
    expect(questionFocus('哪个城市最好')).toEqual(['城市']);
    expect(questionFocus('你最喜欢什么颜色？')).toEqual(['颜色']);
  });

  it('finds none where the question word asks for a place, a time or a whole event', () => {
    expect(questionFocus('What did I do with Rachel?')).toEqual([]);
    expect(questionFocus('What is the name of my dog?')).toEqual([]);
    expect(questionFocus('上周我去了哪里')).toEqual([]);
    expect(questionFocus('我什么时候去的北京')).toEqual([]);
    expect(questionFocus('charging port loose')).toEqual([]);
  });
});
