// A strict XML 1.0 well-formedness check for the reports the tests read (no XML parser is a
// dependency): one root element, tags matched and nested, attributes quoted and unique, only the
// predefined entities and character references, no `<` or `&` loose in text. Returns the tree.
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][\w.:-]*/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string, where: string): string {
  if (/<|&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text)) throw new Error(`not well-formed: a loose < or & in ${where}: ${JSON.stringify(text.slice(0, 80))}`);
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_m, ref: string) => ref.startsWith('#x') ? String.fromCodePoint(parseInt(ref.slice(2), 16)) : ref.startsWith('#') ? String.fromCodePoint(Number(ref.slice(1))) : ENTITIES[ref]!);
}

export function parseXml(source: string): XmlElement {
  let at = 0;
  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) throw new Error('not well-formed: unterminated XML declaration');
    at = end + 2;
  }
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (at < source.length) {
    const lt = source.indexOf('<', at);
    const text = source.slice(at, lt < 0 ? source.length : lt);
    if (stack.length === 0) {
      if (text.trim() !== '') throw new Error(`not well-formed: text outside the root element: ${JSON.stringify(text.slice(0, 40))}`);
    } else {
      stack.at(-1)!.text += decode(text, `<${stack.at(-1)!.name}>`);
    }
    if (lt < 0) break;
    at = lt;
    if (source.startsWith('<!--', at)) {
      const end = source.indexOf('-->', at);
      if (end < 0) throw new Error('not well-formed: unterminated comment');
      at = end + 3;
      continue;
    }
    if (source.startsWith('</', at)) {
      const end = source.indexOf('>', at);
      const name = source.slice(at + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`not well-formed: </${name}> closes <${open?.name ?? 'nothing'}>`);
      at = end + 1;
      continue;
    }
    const name = NAME.exec(source.slice(at + 1))?.[0];
    if (!name) throw new Error(`not well-formed: a < not starting a tag at ${at}`);
    at += 1 + name.length;
    const element: XmlElement = { name, attributes: {}, children: [], text: '' };
    for (;;) {
      const rest = source.slice(at);
      const space = /^\s*/.exec(rest)![0].length;
      at += space;
      if (source.startsWith('/>', at) || source.startsWith('>', at)) break;
      if (space === 0) throw new Error(`not well-formed: attributes of <${name}> not separated by space`);
      const attribute = /^([A-Za-z_:][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(at));
      if (!attribute) throw new Error(`not well-formed: a malformed attribute in <${name}>: ${JSON.stringify(source.slice(at, at + 40))}`);
      if (Object.hasOwn(element.attributes, attribute[1]!)) throw new Error(`not well-formed: attribute ${attribute[1]} twice in <${name}>`);
      element.attributes[attribute[1]!] = decode(attribute[3] ?? attribute[4] ?? '', `attribute ${attribute[1]}`);
      at += attribute[0].length;
    }
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else if (root) throw new Error('not well-formed: more than one root element');
    else root = element;
    if (source.startsWith('/>', at)) at += 2;
    else { at += 1; stack.push(element); }
  }
  if (stack.length > 0) throw new Error(`not well-formed: <${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('not well-formed: no root element');
  return root;
}

/** Every element named `name` under `element`, depth first. */
export function elementsNamed(element: XmlElement, name: string): XmlElement[] {
  return [...(element.name === name ? [element] : []), ...element.children.flatMap((child) => elementsNamed(child, name))];
}
