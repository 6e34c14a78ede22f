// The bundled processor (scripts/artillery-processor.mjs), as text.
declare module 'cardctl:artillery-processor' {
  const text: string;
  export default text;
}
