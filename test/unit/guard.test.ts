import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { assertProfileExplicit, assertReason, confirmCardChange, confirmDestructive, productionBanner } from '../../src/contract/guard.js';
import { tempDir } from '../helpers/cli.js';
import { testContext } from '../helpers/context.js';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

async function configWith(env: 'sandbox' | 'production', extra: Record<string, unknown> = {}) {
  const dir = tempDir(); dirs.push(dir);
  await new ConfigStore({ CARDCTL_CONFIG_DIR: dir.path }).setProfile('default', { baseUrl: 'https://api.example.com', env, ...extra });
  return dir.path;
}

const action = { description: 'deactivate card 1234 (ADA OBI)', typedConfirmation: '1234', typedLabel: "the card's last four digits" };

describe('confirmDestructive', () => {
  it('asks y/N on a sandbox terminal and stops on no', async () => {
    const ctx = testContext({ tty: true, configDir: await configWith('sandbox'), answers: [false] });
    await expect(confirmDestructive(ctx, action)).rejects.toThrow(/cancelled/);
    const yes = testContext({ tty: true, configDir: await configWith('sandbox'), answers: [true] });
    await expect(confirmDestructive(yes, action)).resolves.toBeUndefined();
  });

  it('makes a production operator type the last four digits', async () => {
    const wrong = testContext({ tty: true, configDir: await configWith('production'), answers: ['y'] });
    await expect(confirmDestructive(wrong, action)).rejects.toThrow(/did not match/);
    const right = testContext({ tty: true, configDir: await configWith('production'), answers: ['1234'] });
    await expect(confirmDestructive(right, action)).resolves.toBeUndefined();
  });

  it('needs --yes without a terminal, and --confirm-production too against production', async () => {
    const noTty = testContext({ configDir: await configWith('sandbox') });
    await expect(confirmDestructive(noTty, action)).rejects.toMatchObject({ exitCode: 2, hint: expect.stringContaining('--yes') });
    const sandboxYes = testContext({ configDir: await configWith('sandbox'), globals: { yes: true } });
    await expect(confirmDestructive(sandboxYes, action)).resolves.toBeUndefined();
    const prodYes = testContext({ configDir: await configWith('production'), globals: { yes: true } });
    await expect(confirmDestructive(prodYes, action)).rejects.toMatchObject({ exitCode: 2, hint: expect.stringContaining('--confirm-production') });
    const prodBoth = testContext({ configDir: await configWith('production'), globals: { yes: true, confirmProduction: true } });
    await expect(confirmDestructive(prodBoth, action)).resolves.toBeUndefined();
  });
});

describe('profile rules', () => {
  it('refuses an implicit profile that requires being named', async () => {
    const dir = await configWith('production', { requireExplicitProfile: true });
    expect(() => assertProfileExplicit(testContext({ configDir: dir }))).toThrow(/must be named explicitly/);
    expect(() => assertProfileExplicit(testContext({ configDir: dir, globals: { profile: 'default' } }))).not.toThrow();
    expect(() => assertProfileExplicit(testContext({ configDir: dir, env: { CARDCTL_PROFILE: 'default' } }))).not.toThrow();
  });

  it('requires a reason for production deactivations when the profile says so', async () => {
    const ctx = testContext({ configDir: await configWith('production', { requireReason: true }) });
    expect(() => assertReason(ctx, undefined, 'deactivating a card')).toThrow(/needs --reason/);
    expect(() => assertReason(ctx, 'stolen', 'deactivating a card')).not.toThrow();
  });

  it('shows a banner only for production on a terminal', async () => {
    expect(productionBanner(testContext({ tty: true, configDir: await configWith('production') }))).toMatch(/PRODUCTION.*default.*api\.example\.com/);
    expect(productionBanner(testContext({ tty: false, configDir: await configWith('production') }))).toBeUndefined();
    expect(productionBanner(testContext({ tty: true, configDir: await configWith('sandbox') }))).toBeUndefined();
  });
});

describe('confirmCardChange', () => {
  const change = (askOnSandbox: boolean, loads: string[]) => ({
    verb: 'renew',
    cardId: 'c1',
    askOnSandbox,
    load: async () => {
      loads.push('c1');
      return { lastFour: '4321', label: '506099******4321 (ADA OBI)' };
    },
  });

  it('asks nothing on a sandbox for renew-like verbs, y/N on a terminal for deactivate-like ones', async () => {
    const loads: string[] = [];
    await expect(confirmCardChange(testContext({ configDir: await configWith('sandbox') }), change(false, loads))).resolves.toBeUndefined();
    await expect(confirmCardChange(testContext({ configDir: await configWith('sandbox') }), change(true, loads))).resolves.toBeUndefined();
    await expect(confirmCardChange(testContext({ tty: true, configDir: await configWith('sandbox'), answers: [false] }), change(true, loads))).rejects.toThrow(/cancelled/);
    expect(loads).toHaveLength(1);
  });

  it('against production: typed last four on a terminal, --yes --confirm-production otherwise, nothing under --dry-run', async () => {
    const loads: string[] = [];
    const prod = await configWith('production');
    const typed = testContext({ tty: true, configDir: prod, answers: ['4321'] });
    await expect(confirmCardChange(typed, change(false, loads))).resolves.toBeUndefined();
    await expect(confirmCardChange(testContext({ tty: true, configDir: prod, answers: ['1234'] }), change(false, loads))).rejects.toThrow(/did not match/);
    await expect(confirmCardChange(testContext({ configDir: prod }), change(false, loads))).rejects.toMatchObject({ exitCode: 2, hint: expect.stringContaining('--confirm-production') });
    await expect(confirmCardChange(testContext({ configDir: prod, globals: { yes: true } }), change(false, loads))).rejects.toMatchObject({ exitCode: 2 });
    await expect(confirmCardChange(testContext({ configDir: prod, globals: { yes: true, confirmProduction: true } }), change(false, loads))).resolves.toBeUndefined();
    await expect(confirmCardChange(testContext({ configDir: prod, globals: { dryRun: true } }), change(false, loads))).resolves.toBeUndefined();
    // The card is fetched only when its last four are asked for.
    expect(loads).toHaveLength(2);
  });
});
