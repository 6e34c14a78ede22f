// The output formats the renderer writes: a profile's `output`, -o and CARDCTL_OUTPUT choose one.
export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'raw';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv', 'raw'];
