// The output formats the renderer writes: a profile's `output`, -o and CARDCTL_OUTPUT choose one.
export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'raw';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson', 'csv', 'raw'];

/**
 * What a command prints, known before it sends anything, so that `--fields` is checked then
 * (exit 2 means nothing was sent): the dot paths of its records (nested objects' too), the
 * column headers people see, and the paths under which any property may appear (`''`: the
 * records are any JSON, as `cardctl api` prints). Built by src/output/shape.ts from the
 * columns and the response schemas; a command declares it lazily (CommandDefinition.output).
 */
export interface OutputShape {
  readonly paths: readonly string[];
  readonly headers: readonly string[];
  readonly openPaths: readonly string[];
}
