/**
 * A Chart.js chart in a canvas, rebuilt when its config changes. The canvas is an image
 * with a text alternative (`label`); views put the same numbers in text or a table too.
 */
import { useEffect, useRef } from 'preact/hooks';
import { BarController, BarElement, CategoryScale, Chart, Legend, LineController, LineElement, LinearScale, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);
Chart.defaults.animation = false;
Chart.defaults.font.family = 'system-ui, sans-serif';
Chart.defaults.color = '#333';

export function ChartCanvas({ config, label, height, className }: { config: ChartConfiguration; label: string; height: number; className?: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  useEffect(() => {
    if (!canvas.current) return;
    chart.current?.destroy();
    chart.current = new Chart(canvas.current, { ...config, options: { responsive: true, maintainAspectRatio: false, ...config.options } });
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, [JSON.stringify(config)]);
  return (
    <div class={`chart ${className ?? ''}`} style={{ height: `${height}px` }}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
