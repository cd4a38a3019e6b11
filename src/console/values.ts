/** A payload as a table shows it: its value and unit, a position as coordinates, anything else as short JSON. */
export function valueText(item: string, p: Record<string, unknown>): string {
  if (typeof p.latitude === 'number' && typeof p.longitude === 'number') return `${p.latitude.toFixed(4)}, ${p.longitude.toFixed(4)}`;
  if (item === 'geolocation') return `${Number(p.latitude).toFixed(4)}, ${Number(p.longitude).toFixed(4)}`;
  if ('value' in p) {
    const unit = p.unit === 'PERCENTAGE' ? '%' : typeof p.unit === 'string' ? p.unit : '';
    const v = typeof p.value === 'object' && p.value !== null ? JSON.stringify(p.value) : String(p.value);
    return `${v} ${unit}`.trim();
  }
  const rest = Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'timestamp' && k !== 'receivedAt'));
  const text = Object.keys(rest).length ? JSON.stringify(rest) : 'reported';
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
