// `webhook listen --rules FILE`: YAML or JSON rules that choose the response code (and an
// optional delay) from the incoming message. First match wins; no match → the default code.
//
//   default: "00"
//   rules:
//     - name: big cash at ATMs
//       match: { amount: { min: 50000 }, processingCode: "01", channel: atm }
//       respond: "61"
//     - match: { panSuffix: "0008" }
//       respond: "05"
//     - match: { amount: 13.13 }
//       respond: "00"
//       delay: 6000        # ms: longer than the sandbox's 5 s timeout → 96
//     - match: { amount: { min: 2000 } }
//       respond: "10"
//       approvedAmount: 1500   # partial approval: field 4 of the answer, major units
//   failEvery: 5               # every 5th message is answered HTTP 500 (the network stands in)
//   repeats: inconsistent      # a repeat (same STAN, RRN and message class) gets another answer
import { UsageError } from '../core/errors.js';
import { currencyInfo, parseAmount } from '../iso8583/amount.js';
import { channelOfConditionCode, CHANNELS, isValidResponseCode, type Channel } from '../iso8583/codes.js';
import type { SwitchMessage } from '../iso8583/message.js';
import { PARTIAL_APPROVAL_CODE } from '../webhook-protocol/reply.js';
import { REPEAT_BEHAVIOURS, type RepeatBehaviour } from './behaviours.js';

export type { RepeatBehaviour };

export interface RuleMatch {
  /** Major units of the message currency (field 49): exact, or a range (inclusive). */
  amount?: number | { min?: number; max?: number };
  /** The last digits of the PAN (field 2). */
  panSuffix?: string;
  /** Field 3, or its prefix ("01" matches 010000). */
  processingCode?: string;
  /** pos, atm or web, read from field 25 (POS condition code). */
  channel?: Channel;
  /** Request MTI (0100, 0200, 0420). */
  mti?: string;
}

export interface Rule {
  name?: string;
  match: RuleMatch;
  respond: string;
  /** Milliseconds to wait before answering. */
  delay?: number;
  /** With respond "10" (partial approval): the amount approved, major units of field 49's currency. */
  approvedAmount?: number;
}

export interface RuleSet {
  rules: Rule[];
  default?: string;
  /** Every Nth message is answered HTTP 500. */
  failEvery?: number;
  repeats?: RepeatBehaviour;
}

export interface Decision {
  code: string;
  delay: number;
  approvedAmount?: number;
  /** "rule 2 (big cash at ATMs)", or "default". */
  reason: string;
}

const RULE_KEYS = new Set(['name', 'match', 'respond', 'delay', 'approvedAmount']);
const ROOT_KEYS = ['rules', 'default', 'failEvery', 'repeats'];
const MATCH_KEYS = new Set(['amount', 'panSuffix', 'processingCode', 'channel', 'mti']);

/** Parses and checks a rules file's text; errors are usage errors naming the file and rule. */
export async function parseRules(text: string, file: string): Promise<RuleSet> {
  const { parseYamlFile } = await import('../core/yaml.js');
  const data = (await parseYamlFile(text, file, 'rules file')).value;
  const fail = (where: string, message: string): never => {
    throw new UsageError(`invalid rules file ${file}: ${where}${message}`, { hint: 'see `cardctl webhook listen --help` for the rules format' });
  };
  const root = Array.isArray(data) ? { rules: data } : data;
  if (!root || typeof root !== 'object') fail('', 'expected a list of rules, or {rules: [...], default: CODE}');
  const { rules, default: fallback, failEvery, repeats, ...rest } = root as Record<string, unknown>;
  if (Object.keys(rest).length) fail('', `unknown key "${Object.keys(rest)[0]}" (expected ${ROOT_KEYS.join(', ')})`);
  if (failEvery !== undefined && !(Number.isInteger(failEvery) && (failEvery as number) >= 1)) fail('failEvery: ', 'must be a whole number from 1 (every message) up');
  if (repeats !== undefined && !(REPEAT_BEHAVIOURS as readonly unknown[]).includes(repeats)) fail('repeats: ', `must be one of ${REPEAT_BEHAVIOURS.join(', ')}`);
  if (fallback !== undefined && !isValidResponseCode(String(fallback))) fail('default: ', `"${String(fallback)}" is not a response code`);
  if (!Array.isArray(rules)) fail('', '"rules" must be a list');
  const parsed = (rules as unknown[]).map((raw, index) => {
    const where = `rule ${index + 1}: `;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(where, 'expected a map with match and respond');
    const rule = raw as Record<string, unknown>;
    for (const key of Object.keys(rule)) if (!RULE_KEYS.has(key)) fail(where, `unknown key "${key}" (expected ${[...RULE_KEYS].join(', ')})`);
    const respond = rule.respond === undefined ? undefined : String(rule.respond).padStart(typeof rule.respond === 'number' ? 2 : 0, '0');
    if (!respond || !isValidResponseCode(respond)) fail(where, 'respond must be a two-character response code such as "00" or "51"');
    if (rule.delay !== undefined && (typeof rule.delay !== 'number' || !Number.isFinite(rule.delay) || rule.delay < 0 || rule.delay > 120_000)) {
      fail(where, 'delay must be milliseconds from 0 to 120000');
    }
    const approvedAmount = rule.approvedAmount;
    if (approvedAmount !== undefined) {
      if (typeof approvedAmount !== 'number' || !(approvedAmount > 0)) fail(where, 'approvedAmount must be a number above 0 (major units)');
      if (respond !== PARTIAL_APPROVAL_CODE) fail(where, `approvedAmount goes with respond "${PARTIAL_APPROVAL_CODE}" (partial approval)`);
    }
    const match = (rule.match ?? {}) as Record<string, unknown>;
    if (typeof match !== 'object' || Array.isArray(match)) fail(where, 'match must be a map');
    for (const key of Object.keys(match)) if (!MATCH_KEYS.has(key)) fail(where, `unknown match key "${key}" (expected ${[...MATCH_KEYS].join(', ')})`);
    const out: RuleMatch = {};
    if (match.amount !== undefined) {
      const amount = match.amount;
      if (typeof amount === 'number') out.amount = amount;
      else if (amount && typeof amount === 'object' && !Array.isArray(amount)) {
        const { min, max, ...other } = amount as Record<string, unknown>;
        if (Object.keys(other).length) fail(where, 'amount takes min and max');
        if ((min !== undefined && typeof min !== 'number') || (max !== undefined && typeof max !== 'number')) fail(where, 'amount min and max are numbers (major units)');
        out.amount = { min: min as number | undefined, max: max as number | undefined };
      } else fail(where, 'amount is a number or {min, max} in major units');
    }
    if (match.panSuffix !== undefined) {
      const suffix = String(match.panSuffix);
      if (!/^\d{1,10}$/.test(suffix)) fail(where, 'panSuffix is 1 to 10 digits');
      out.panSuffix = suffix;
    }
    if (match.processingCode !== undefined) {
      const code = String(match.processingCode).padStart(typeof match.processingCode === 'number' ? 2 : 0, '0');
      if (!/^\d{2,6}$/.test(code)) fail(where, 'processingCode is 2 to 6 digits (a prefix of field 3)');
      out.processingCode = code;
    }
    if (match.channel !== undefined) {
      if (!(CHANNELS as readonly string[]).includes(String(match.channel))) fail(where, `channel is one of ${CHANNELS.join(', ')}`);
      out.channel = match.channel as Channel;
    }
    if (match.mti !== undefined) {
      const mti = String(match.mti).padStart(4, '0');
      if (!/^\d{4}$/.test(mti)) fail(where, 'mti is 4 digits');
      out.mti = mti;
    }
    return {
      name: rule.name === undefined ? undefined : String(rule.name), match: out, respond: respond!, delay: rule.delay as number | undefined,
      ...(approvedAmount !== undefined ? { approvedAmount: approvedAmount as number } : {}),
    };
  });
  return {
    rules: parsed, default: fallback === undefined ? undefined : String(fallback),
    ...(failEvery !== undefined ? { failEvery: failEvery as number } : {}),
    ...(repeats !== undefined ? { repeats: repeats as RepeatBehaviour } : {}),
  };
}

export function matches(match: RuleMatch, message: SwitchMessage): boolean {
  if (match.mti !== undefined && message['0'] !== match.mti) return false;
  if (match.processingCode !== undefined && !(message['3'] ?? '').startsWith(match.processingCode)) return false;
  if (match.panSuffix !== undefined) {
    const pan = (message['2'] ?? '').replace(/\D/g, '');
    if (!pan.endsWith(match.panSuffix)) return false;
  }
  if (match.channel !== undefined && channelOfConditionCode(message['25']) !== match.channel) return false;
  if (match.amount !== undefined) {
    const field4 = message['4'];
    if (!field4 || !/^\d{1,12}$/.test(field4)) return false;
    const digits = currencyInfo(message['49'] ?? '566')?.digits ?? 2;
    const minor = BigInt(field4);
    const toMinor = (major: number) => {
      try { return parseAmount(String(major), digits); } catch { return BigInt(Math.round(major * 10 ** digits)); }
    };
    if (typeof match.amount === 'number') {
      if (minor !== toMinor(match.amount)) return false;
    } else {
      if (match.amount.min !== undefined && minor < toMinor(match.amount.min)) return false;
      if (match.amount.max !== undefined && minor > toMinor(match.amount.max)) return false;
    }
  }
  return true;
}

/** What answers a message no rule decides: --delay and --approved-amount of `webhook listen`. */
export interface DefaultAnswer {
  delay?: number;
  approvedAmount?: number;
}

export function decide(ruleSet: RuleSet | undefined, message: SwitchMessage, fallback: string, defaults: DefaultAnswer = {}): Decision {
  const rules = ruleSet?.rules ?? [];
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    if (matches(rule.match, message)) {
      return {
        code: rule.respond, delay: rule.delay ?? 0, reason: `rule ${i + 1}${rule.name ? ` (${rule.name})` : ''}`,
        ...(rule.approvedAmount !== undefined ? { approvedAmount: rule.approvedAmount } : {}),
      };
    }
  }
  const code = ruleSet?.default ?? fallback;
  return {
    code, delay: defaults.delay ?? 0, reason: ruleSet ? 'default' : '--respond',
    ...(defaults.approvedAmount !== undefined && code === PARTIAL_APPROVAL_CODE ? { approvedAmount: defaults.approvedAmount } : {}),
  };
}
