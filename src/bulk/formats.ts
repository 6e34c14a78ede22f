// The formats of a bulk run's rows, on their own so the commands can name them in their flags
// without loading the readers at start-up.
import type { ImportFormat } from './readers.js';

export type BulkFormat = ImportFormat | 'ids';
export const BULK_FORMATS: readonly BulkFormat[] = ['csv', 'ndjson', 'json', 'ids'];
