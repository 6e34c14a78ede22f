// Closing the sandbox while requests are in progress: they finish, then the store closes.
import { expect, test } from 'vitest';
import { call, createCardBody, startTestSandbox } from './helpers.js';

test('close() lets requests in progress finish before the store closes', async () => {
  const sandbox = await startTestSandbox();
  let handled = 0;
  const requests = Array.from({ length: 8 }, () =>
    call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox) })
      .then((response) => { handled++; return response.status; })
      .catch(() => 'connection closed'));
  // Let the requests reach their handlers (they await the PIN hash), then close. Waiting on
  // sockets alone is not enough on a loaded machine: a socket can be open before its request
  // has been read, and close() would then refuse every request.
  while (sandbox.runningHandlers() === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  await sandbox.close();
  const statuses = await Promise.all(requests);
  // Created, or refused because the server was closing: never a 500 from a closed database.
  for (const status of statuses) expect([201, 503, 'connection closed']).toContain(status);
  expect(handled).toBeGreaterThan(0);
  // The store is closed only now; a second close is a no-op.
  await sandbox.close();
  expect(sandbox.deps.store.db.open).toBe(false);
});
