/**
 * A recall hit's score as a small stacked bar. The score is relevance (text + vector, which
 * add up to it) times the importance, recency and heat factors and the query signals
 * (speaker, time, focus; see `RecallResult.signals`); the bar applies the factors
 * in that order, so each segment is what that part added (right of zero) or took away
 * (left of zero), and the bar's net length is the score.
 */
import type { RecallExplain } from '@zeromem/core';
import { ChartCanvas } from './chart-canvas.tsx';

export const SCORE_PARTS = ['text', 'vector', 'importance', 'recency', 'heat', 'signals'] as const;
export type ScorePart = (typeof SCORE_PARTS)[number];

const COLORS: Record<ScorePart, string> = { text: '#1f5fbf', vector: '#7a3db8', importance: '#b35900', recency: '#1b7f4d', heat: '#b3123b', signals: '#5c6670' };

/** The segments: text and vector parts of relevance, then each factor's change. They sum to the score. */
export function scoreSegments(explain: RecallExplain): Record<ScorePart, number> {
  const total = explain.contributions.text + explain.contributions.vector;
  const relevance = explain.relevance;
  const textShare = total > 0 ? explain.contributions.text / total : 1;
  const afterImportance = relevance * explain.importance;
  const afterRecency = afterImportance * explain.recency;
  const afterHeat = afterRecency * explain.heat;
  const score = afterHeat * explain.speaker * explain.time * explain.focus;
  return {
    text: relevance * textShare,
    vector: relevance * (1 - textShare),
    importance: afterImportance - relevance,
    recency: afterRecency - afterImportance,
    heat: afterHeat - afterRecency,
    signals: score - afterHeat,
  };
}

export function describeScore(score: number, explain: RecallExplain): string {
  const f = (n: number) => n.toFixed(3);
  return `score ${f(score)} = (text ${f(explain.contributions.text / (explain.importance * explain.recency * explain.heat * explain.speaker * explain.time * explain.focus || 1))} + vector ${f(explain.contributions.vector / (explain.importance * explain.recency * explain.heat * explain.speaker * explain.time * explain.focus || 1))}) × importance ${f(explain.importance)} × recency ${f(explain.recency)} × heat ${f(explain.heat)} × signals ${f(explain.speaker * explain.time * explain.focus)}`;
}

export function ScoreBar({ score, explain, max }: { score: number; explain: RecallExplain; max: number }) {
  const segments = scoreSegments(explain);
  return (
    <ChartCanvas
      className="score-bar"
      height={34}
      label={describeScore(score, explain)}
      config={{
        type: 'bar',
        data: {
          labels: ['score'],
          datasets: SCORE_PARTS.map((part) => ({ label: part, data: [Number(segments[part].toFixed(4))], backgroundColor: COLORS[part], barThickness: 14 })),
        },
        options: {
          indexAxis: 'y',
          plugins: { legend: { display: false }, tooltip: { enabled: true } },
          scales: {
            x: { stacked: true, min: -0.2 * max, max: max * 1.05, ticks: { display: false }, grid: { display: false }, border: { display: false } },
            y: { stacked: true, display: false },
          },
        },
      }}
    />
  );
}

export function ScoreLegend() {
  return (
    <ul class="legend" aria-label="Score parts">
      {SCORE_PARTS.map((part) => (
        <li key={part}>
          <span class="swatch" style={{ background: COLORS[part] }} aria-hidden="true" /> {part}
        </li>
      ))}
    </ul>
  );
}
