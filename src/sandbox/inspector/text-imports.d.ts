// The inspector's page files, imported as text (see assets.ts). A pattern applies only where an
// import finds no TypeScript file, so '*/client.js' types the page's script and nothing else.
declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.css' {
  const text: string;
  export default text;
}
declare module '*/client.js' {
  const text: string;
  export default text;
}
