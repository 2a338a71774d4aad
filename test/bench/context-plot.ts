import type { TurnPoint } from './context-conversation.ts';

/** An SVG line chart (log-scale tokens) of the full history and the built context per user turn. */
export function tokensSvg(points: readonly TurnPoint[], title: string): string {
  const width = 820;
  const height = 420;
  const left = 70;
  const right = 20;
  const top = 40;
  const bottom = 50;
  const maxTokens = Math.max(...points.map((p) => Math.max(p.fullHistory, p.context)));
  const minExp = 1;
  const maxExp = Math.ceil(Math.log10(maxTokens));
  const x = (turn: number) => left + ((turn - 1) / Math.max(1, points.length - 1)) * (width - left - right);
  const y = (tokens: number) => top + (1 - (Math.log10(Math.max(tokens, 10)) - minExp) / (maxExp - minExp)) * (height - top - bottom);
  const path = (pick: (p: TurnPoint) => number) => points.map((p, i) => `${i ? 'L' : 'M'}${x(p.turn).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(' ');
  const grid: string[] = [];
  for (let e = minExp; e <= maxExp; e++) {
    const gy = y(10 ** e).toFixed(1);
    grid.push(`<line x1="${left}" y1="${gy}" x2="${width - right}" y2="${gy}" stroke="#ddd"/>`);
    grid.push(`<text x="${left - 8}" y="${gy}" text-anchor="end" dominant-baseline="middle">${(10 ** e).toLocaleString('en-US')}</text>`);
  }
  const step = points.length > 200 ? 50 : points.length > 50 ? 25 : 5;
  for (let turn = step; turn <= points.length; turn += step) {
    grid.push(`<text x="${x(turn).toFixed(1)}" y="${height - bottom + 18}" text-anchor="middle">${turn}</text>`);
  }
  const last = points.at(-1)!;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="22" text-anchor="middle" font-size="14">${escape(title)}</text>
${grid.join('\n')}
<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="#333"/>
<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="#333"/>
<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">user turn</text>
<text x="16" y="${(top + height - bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(top + height - bottom) / 2})">prompt tokens (log scale, o200k_base)</text>
<path d="${path((p) => p.fullHistory)}" fill="none" stroke="#d62728" stroke-width="2"/>
<path d="${path((p) => p.context)}" fill="none" stroke="#1f77b4" stroke-width="2"/>
<rect x="${left + 14}" y="${top + 8}" width="12" height="3" fill="#d62728"/><text x="${left + 32}" y="${top + 12}">full history (${last.fullHistory.toLocaleString('en-US')} tokens at the last turn)</text>
<rect x="${left + 14}" y="${top + 26}" width="12" height="3" fill="#1f77b4"/><text x="${left + 32}" y="${top + 30}">buildContext, budget 1,000 (${last.context} at the last turn)</text>
</svg>
`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
