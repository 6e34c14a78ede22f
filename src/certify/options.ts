// The certification's command line made into its input: which checks, the rules file, the
// latency run's rate and duration, the seed. Usage errors here, before anything starts.
import { parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { isObject } from '../core/is-object.js';
import { parseYamlFile } from '../core/yaml.js';
import { isValidResponseCode } from '../iso8583/codes.js';
import { CHECK_NAMES, RULED_CHECK_NAMES } from './checks.js';

const MAX_RATE = 100;
const MAX_DURATION_MS = 60_000;

/** The checks to run: all, or those of --only, less those of --skip; a name not known is a usage error listing the names. */
export function selectChecks(only: string | undefined, skipped: string | undefined): string[] {
  const names = (flag: string, text: string) => {
    const given = text.split(',').map((name) => name.trim()).filter((name) => name !== '');
    if (given.length === 0) throw new UsageError(`${flag} needs check names, e.g. ${flag} authorization-reply,latency`);
    const unknown = given.filter((name) => !CHECK_NAMES.includes(name));
    if (unknown.length > 0) throw new UsageError(`${flag}: unknown check${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; the checks are: ${CHECK_NAMES.join(', ')}`);
    return given;
  };
  const chosen = only === undefined ? [...CHECK_NAMES] : names('--only', only);
  const left = skipped === undefined ? chosen : chosen.filter((name) => !names('--skip', skipped).includes(name));
  if (left.length === 0) throw new UsageError('no check left to run: --skip leaves none of the checks chosen');
  return left;
}

/** The rules file: `expect: { CHECK: CODE | [CODE, …] }`, the response codes each named check may answer ("one of"). */
export async function parseRules(text: string, file: string): Promise<Record<string, readonly string[]>> {
  const { value } = await parseYamlFile(text, file, 'rules file');
  const bad = (message: string): never => { throw new UsageError(`invalid rules file ${file}: ${message}`); };
  const given = isObject(value) && Object.keys(value).every((key) => key === 'expect') ? value.expect : undefined;
  if (!isObject(given)) return bad('expected `expect:` mapping check names to response codes, e.g. expect: { authorization-reply: ["00", "05"] }');
  const expect: Record<string, readonly string[]> = {};
  for (const [check, codes] of Object.entries(given)) {
    if (!RULED_CHECK_NAMES.includes(check)) bad(`${CHECK_NAMES.includes(check) ? `check "${check}" is not graded on a response code` : `unknown check "${check}"`}; the rules may name ${RULED_CHECK_NAMES.join(', ')}`);
    const list = Array.isArray(codes) ? codes : [codes];
    if (list.length === 0 || !list.every((code) => isValidResponseCode(code))) bad(`${check}: give a response code or a list of them, each two characters in quotes, e.g. ["00", "05"]`);
    expect[check] = list.map(String);
  }
  return expect;
}

/** --rate: requests a second, `5` or `5/s`. */
export function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(?:\/s)?$/.exec(text.trim());
  const perSecond = match ? Number(match[1]) : NaN;
  if (!(perSecond > 0 && perSecond <= MAX_RATE)) throw new UsageError(`invalid --rate "${text}": give requests a second above 0 and up to ${MAX_RATE}, e.g. 5/s`);
  return perSecond;
}

/** --duration of the latency run: `3s`, `500ms`, up to a minute. */
export function parseLatencyDuration(text: string): number {
  const parsed = parseDuration(text);
  if (!parsed.ok || !(parsed.ms > 0) || parsed.ms > MAX_DURATION_MS) throw new UsageError(`invalid --duration "${text}": give a duration above 0 and up to 60s, e.g. 3s`);
  return parsed.ms;
}

/** --seed: a whole number (what the webhook faults are seeded with). */
export function parseSeed(text: string): number {
  if (!/^\d{1,9}$/.test(text.trim())) throw new UsageError(`invalid --seed "${text}": give a whole number from 0 to 999999999`);
  return Number(text.trim());
}

/** --url: the webhook, http(s). */
export function parseWebhookUrl(text: string | undefined): string {
  if (text === undefined || text.trim() === '') throw new UsageError('--url is required: the webhook to certify, e.g. --url http://127.0.0.1:8080/card-auth');
  try {
    const url = new URL(text.trim());
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch { /* the message below */ }
  throw new UsageError(`invalid --url "${text}": expected an http(s) URL`);
}
