// How import report entries look when listed.
import type { Column } from '../renderer.js';

export const importReportColumns: Column[] = [
  { header: 'LINE', path: 'line' },
  { header: 'REAL ID', path: 'realId' },
  { header: 'OUTCOME', path: 'outcome', status: true },
  { header: 'CARD ID', path: 'cardId' },
  { header: 'ERROR', path: 'error' },
];
