// The project's own lint rules, loaded by .oxlintrc.json as an ESLint-compatible JS plugin.
//
// no-type-escape: a type assertion that switches the checker off instead of stating a type.
// `x as never` (or `<never>x`) fits any slot, and `x as unknown as T` (or `<T><unknown>x`)
// turns anything into anything; both hide the mismatch a generic, an overload, a type guard or
// `satisfies` would have named. A plain `x as T` stays allowed: TypeScript still checks that
// T and x's type overlap.

/** The node under any parentheses the parser kept. */
function unwrap(node) {
  let inner = node;
  while (inner.type === 'ParenthesizedExpression') inner = inner.expression;
  return inner;
}

const isAssertion = (node) => node.type === 'TSAsExpression' || node.type === 'TSTypeAssertion';
const assertsTo = (node, keyword) => isAssertion(node) && node.typeAnnotation.type === keyword;

const noTypeEscape = {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow `as never`, `<never>x` and `as unknown as T`: type the value instead.' },
    messages: {
      never: 'Do not assert to `never`: it fits any slot and hides the mismatch. Type the value (a generic, an overload, a type guard, `satisfies`).',
      unknownAs: 'Do not assert through `unknown` (`as unknown as T`): it turns anything into anything. Narrow the value with a type guard or type it at its source.',
    },
    schema: [],
  },
  create(context) {
    function check(node) {
      if (assertsTo(node, 'TSNeverKeyword')) {
        context.report({ node, messageId: 'never' });
      } else if (assertsTo(unwrap(node.expression), 'TSUnknownKeyword')) {
        context.report({ node, messageId: 'unknownAs' });
      }
    }
    return { TSAsExpression: check, TSTypeAssertion: check };
  },
};

export default {
  meta: { name: 'cardctl' },
  rules: { 'no-type-escape': noTypeEscape },
};
