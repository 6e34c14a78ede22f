import { existsSync, statSync } from 'node:fs';
import type { Check } from '../core/check.js';
import { defineCommand } from '../contract/command.js';
import type { Context } from '../contract/context.js';
import { AuthError, CliError, ExitCode } from '../core/errors.js';
import { redactUserinfo } from '../core/redact.js';
import { escapeControls } from '../output/format.js';

export type { Check };

/** Largest clock difference with the server before PIN blocks and JWTs get into trouble. */
const MAX_SKEW_SECONDS = 60;

export default defineCommand({
  name: 'doctor',
  mcp: 'read',
  summary: 'check the setup and explain what is wrong',
  description: `Checks the config and key file permissions, the profile, the base URL
(reachability, TLS, proxy), the token (validity, time to expiry), the clock
against the server, the PIN key and the Node version. Each line says ✓ or ✗
and, for ✗, what to do. Exit 0 when all pass, 5 otherwise (as a failed check of
\`webhook certify\`).

--deployment also asks the deployment, with reads only (GETs of the lists and
the activation of a card that does not exist; never a write), whether it
speaks the profile's dialect: for cards, transactions and OAuth applications,
that the page size and page parameters work, that each search or filter
narrows the list to a record it was taken from, that a page size above
maxPageSize is refused or clamped, and that the paging metadata (or short
pages) end the list where --all will; then that an error body has its message,
code and field errors where the profile says. A wrong setting is named with
the value that works when one of a few common names does. A list with fewer
than 2 records cannot tell, and is skipped.`,
  flags: {
    deployment: { type: 'boolean', description: 'also check that the deployment speaks the profile\'s dialect (list parameters, paging, page size limit, error body), with reads only' },
  },
  examples: ['cardctl doctor', 'cardctl doctor -p production -o json', 'cardctl doctor --deployment -p production'],
  async run(ctx, { opts }) {
    const checks = await runChecks(ctx);
    if (opts.deployment) checks.push(...await deploymentChecks(ctx, checks));
    const out = ctx.output();
    if (out.format === 'table') {
      for (const check of checks) {
        const mark = check.skipped ? ctx.style.dim('-') : ctx.style.check(check.ok);
        ctx.io.out(`${mark} ${check.name}: ${escapeControls(check.detail)}\n`);
        if (!check.ok && !check.skipped && check.fix) ctx.io.out(`    ${ctx.style.dim('fix:')} ${escapeControls(check.fix)}\n`);
      }
    } else {
      // A fix is advice for a failed check; passing ones do not carry it.
      const shown = checks.map(({ fix, ...check }) => (check.ok || check.skipped ? check : { ...check, fix }));
      await out.value({ ok: checks.every((c) => c.ok || c.skipped), checks: shown });
    }
    const failed = checks.filter((c) => !c.ok && !c.skipped);
    if (failed.length > 0) {
      // 5, the code of a failed check (webhook certify's too); 1 is for cardctl's own bugs.
      throw new CliError(ExitCode.Rejected, `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((c) => c.name).join(', ')}`, {
        code: 'DOCTOR_FAILED',
      });
    }
  },
});

export async function runChecks(ctx: Context): Promise<Check[]> {
  const checks: Check[] = [];
  const s = ctx.settings();
  const profile = s.profile;

  // Files.
  const perms = ctx.config.permissionsOk();
  // Reading the config tightens loose modes at once; say what was found before the fix.
  const fixed = ctx.config.fixedModes;
  const fixNote = [
    fixed?.file !== undefined && `file was ${octal(fixed.file)}, fixed to 0600`,
    fixed?.dir !== undefined && `directory was ${octal(fixed.dir)}, fixed to 0700`,
  ].filter(Boolean).join('; ');
  // Only what exists is diagnosed, and the fix names only that: chmod of a missing file fails.
  const fixes = [
    perms.dir !== undefined && (perms.dir & 0o077) !== 0 && `chmod 700 "${ctx.config.dir}"`,
    perms.file !== undefined && (perms.file & 0o077) !== 0 && `chmod 600 "${ctx.config.file}"`,
  ].filter(Boolean);
  checks.push({
    name: 'config permissions',
    ok: perms.ok,
    detail: (perms.file === undefined
      ? `no config file yet (${ctx.config.file})${perms.dir === undefined ? '' : `, directory ${octal(perms.dir)}`}`
      : `${ctx.config.file} ${octal(perms.file)}, directory ${octal(perms.dir)}`)
      + (fixNote ? ` (${fixNote})` : ''),
    fix: `${fixes.join(' && ')} (any cardctl command that saves the config also fixes ${fixes.length === 1 ? 'it' : 'them'})`,
  });
  if (profile.privateKeyPath) {
    const exists = existsSync(profile.privateKeyPath);
    const mode = exists ? statSync(profile.privateKeyPath).mode & 0o777 : undefined;
    checks.push({
      name: 'private key file',
      ok: exists && mode !== undefined && (mode & 0o077) === 0,
      detail: exists ? `${profile.privateKeyPath} ${octal(mode)}` : `${profile.privateKeyPath} is missing`,
      fix: exists ? `chmod 600 "${profile.privateKeyPath}"` : 'point the profile at the key again: cardctl login --client-id … --private-key FILE',
    });
  }

  // Profile.
  const hasCredentials = Boolean(s.token || (profile.clientId && profile.privateKeyPath));
  const missing = [!s.baseUrl && 'base URL', !hasCredentials && 'token or client credentials'].filter(Boolean);
  // A profile named (-p, CARDCTL_PROFILE) that is not stored is the diagnosis: nothing is asked of the network.
  const { missingProfile } = await import('../contract/context.js');
  const notStored = missingProfile(ctx);
  checks.push({
    name: 'profile',
    ok: !notStored && missing.length === 0,
    detail: notStored ? notStored.message
      : missing.length === 0
        ? `"${s.profileName}" (${profile.env ?? 'environment not set'}) → ${redactUserinfo(s.baseUrl ?? '')}`
        : `"${s.profileName}" has no ${missing.join(' and no ')}`,
    fix: notStored?.hint ?? 'cardctl login (or cardctl sandbox serve --profile sandbox for a local sandbox)',
  });
  if (notStored) return checks;

  // Network environment.
  const proxy = ctx.env.HTTPS_PROXY ?? ctx.env.https_proxy ?? ctx.env.HTTP_PROXY ?? ctx.env.http_proxy;
  const noProxy = ctx.env.NO_PROXY ?? ctx.env.no_proxy;
  checks.push({
    name: 'proxy',
    ok: true,
    detail: proxy ? `${redactProxy(proxy)}${noProxy ? `, NO_PROXY=${noProxy}` : ''}` : 'none (direct connection)',
  });

  // Reachability, TLS, clock skew: one unauthenticated request whose status does not matter.
  let reachable = false;
  if (s.baseUrl) {
    const ca = ctx.env.NODE_EXTRA_CA_CERTS ? `system CAs + ${ctx.env.NODE_EXTRA_CA_CERTS}` : 'system CAs';
    try {
      const client = await ctx.client();
      const { loadUndici } = await import('../api/client.js');
      const { request } = await loadUndici();
      const started = Date.now();
      const response = await request(client.url('/sandbox/health'), {
        method: 'GET',
        dispatcher: await client.dispatcher(),
        headersTimeout: s.timeoutMs,
        bodyTimeout: s.timeoutMs,
      });
      await response.body.dump();
      const rtt = Date.now() - started;
      reachable = true;
      const tls = client.baseUrl.protocol === 'https:' ? `, TLS verified (${ca})` : ', plain HTTP (loopback)';
      checks.push({ name: 'base URL', ok: true, detail: `${redactUserinfo(s.baseUrl)} answered in ${rtt} ms${tls}` });
      const date = response.headers.date;
      if (typeof date === 'string' && !Number.isNaN(Date.parse(date))) {
        const skew = Math.round((ctx.clock.now().getTime() - (Date.parse(date) + rtt / 2)) / 1000);
        checks.push({
          name: 'clock',
          ok: Math.abs(skew) <= MAX_SKEW_SECONDS,
          detail: `${Math.abs(skew)} s ${skew >= 0 ? 'ahead of' : 'behind'} the server`,
          fix: 'synchronise this machine\'s clock (e.g. systemd-timesyncd or chrony): token expiry and JWT assertions depend on it',
        });
      } else {
        checks.push({ name: 'clock', ok: true, skipped: true, detail: 'the server sends no Date header' });
      }
    } catch (error) {
      const { toNetworkError } = await import('../api/client.js');
      const failure = toNetworkError(error, s.timeoutMs);
      checks.push({
        name: 'base URL',
        ok: false,
        detail: `${redactUserinfo(s.baseUrl)}: ${failure?.message ?? String(error)}`,
        fix: failure?.hint ?? 'check the URL, your network and proxy settings',
      });
    }
  } else {
    checks.push({ name: 'base URL', ok: false, skipped: true, detail: 'no base URL to check' });
  }

  // Token.
  if (reachable && hasCredentials) {
    try {
      const [client, { listCards }] = await Promise.all([ctx.client(), import('../api/cards.js')]);
      // No list parameters: a wrong dialect setting is for --deployment to name, not a token failure.
      await listCards(client);
      const expiry = profile.tokenExpiresAt && !ctx.env.CARDCTL_TOKEN ? Date.parse(profile.tokenExpiresAt) : NaN;
      const left = Number.isNaN(expiry) ? '' : `, expires in ${formatDuration(expiry - ctx.clock.now().getTime())}`;
      checks.push({ name: 'token', ok: true, detail: `accepted${left}` });
    } catch (error) {
      const failure = error instanceof CliError ? error : undefined;
      if (failure instanceof AuthError && failure.missingScope) {
        // Accepted, but without the scope of the check request: a narrow token, not a broken one.
        checks.push({ name: 'token', ok: true, detail: `accepted (lacks ${failure.missingScope}, the scope of GET /institutions/cards)` });
      } else {
        const expiredAt = profile.tokenExpiresAt && !ctx.env.CARDCTL_TOKEN && Date.parse(profile.tokenExpiresAt) <= ctx.clock.now().getTime()
          ? `expired at ${profile.tokenExpiresAt} and could not be renewed: `
          : '';
        checks.push({
          name: 'token',
          ok: false,
          detail: `${expiredAt}${failure?.message ?? String(error)}`,
          fix: expiredAt
            ? `check the client credentials (${failure?.hint ?? 'the private key and client id'}), or log in again: cardctl login`
            : failure?.exitCode === ExitCode.Auth && failure.status !== 403 ? 'cardctl login (the token is missing, expired or revoked)' : failure?.hint,
        });
      }
    }
  } else {
    checks.push({ name: 'token', ok: false, skipped: true, detail: hasCredentials ? 'base URL unreachable' : 'no credentials' });
  }

  // PIN key.
  checks.push(profile.pinKey && profile.pinKeyFingerprint
    ? { name: 'PIN key', ok: true, detail: `fingerprint ${profile.pinKeyFingerprint.slice(0, 16)}…` }
    : {
      name: 'PIN key',
      ok: profile.env === 'sandbox',
      detail: profile.env === 'sandbox' ? 'not stored; fetched from /sandbox/pin-key when needed' : 'missing: PIN commands cannot encrypt PIN blocks',
      fix: 'cardctl login --pin-key FILE (the institution\'s PIN public key, PEM)',
    });

  // Runtime.
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({ name: 'Node.js', ok: major >= 20, detail: `${process.version} on ${process.platform}/${process.arch}`, fix: 'install Node.js 20 or newer' });
  return checks;
}

/**
 * `--deployment`: the probes of src/deployment/probe.ts, when the setup checks found a base URL
 * that answers and a token it accepts.
 */
export async function deploymentChecks(ctx: Context, setup: readonly Check[]): Promise<Check[]> {
  if (!setup.find((c) => c.name === 'token')?.ok) {
    return [{ name: 'deployment', ok: false, skipped: true, detail: 'cannot probe: needs a base URL that answers and a token it accepts' }];
  }
  const client = await ctx.client();
  const [{ probeDeployment }, { DEFAULT_DIALECT, dialectEntries }] = await Promise.all([import('../deployment/probe.js'), import('../api/dialect.js')]);
  const dialect = ctx.dialect();
  const defaults = new Map(dialectEntries(DEFAULT_DIALECT));
  const changed = dialectEntries(dialect).filter(([key, value]) => defaults.get(key) !== value).map(([key]) => key);
  const spoken: Check = {
    name: 'dialect',
    ok: true,
    detail: changed.length === 0 ? 'the default (the sandbox\'s)' : `${changed.length} setting${changed.length === 1 ? '' : 's'} changed: ${changed.join(', ')} (cardctl profile show)`,
  };
  const target = {
    async get(path: string, query: Record<string, string | number>) {
      const { status, text } = await client.getAsIs(path, query);
      return { status, body: parseJson(text) };
    },
  };
  try {
    return [spoken, ...await probeDeployment(target, dialect)];
  } catch (error) {
    const { toNetworkError } = await import('../api/client.js');
    const failure = error instanceof CliError ? error : toNetworkError(error, ctx.settings().timeoutMs);
    return [spoken, { name: 'deployment', ok: false, detail: `the probe stopped: ${failure.message}`, fix: failure.hint }];
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function octal(mode: number | undefined): string {
  return mode === undefined ? '(missing)' : `0${mode.toString(8)}`;
}

function redactProxy(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

function formatDuration(ms: number): string {
  if (ms <= 0) return 'now (expired)';
  const minutes = Math.round(ms / 60_000);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}
