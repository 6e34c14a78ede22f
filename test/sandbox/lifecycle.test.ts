// Closing the sandbox while requests are in progress: they finish, then the store closes.
import { expect, test } from 'vitest';
import { call, createCard, createCardBody, startTestSandbox } from './helpers.js';

test('close() lets requests in progress finish before the store closes', async () => {
  const sandbox = await startTestSandbox();
  // `call` checks each response against /openapi.json, fetched on first use: fetch it now, as a
  // closing server refuses it (which would turn a 201 into a failed call).
  await createCard(sandbox);
  let handled = 0;
  const requests = Array.from({ length: 8 }, () =>
    call(sandbox, 'POST', '/institutions/cards', { token: sandbox.token, body: createCardBody(sandbox) })
      .then((response) => { handled++; return response.status; })
      .catch(() => 'connection closed'));
  // Let the requests reach their handlers (they await the PIN hash), then close. Waiting on
  // sockets alone is not enough on a loaded machine: a socket can be open before its request
  // has been read, and close() would then refuse every request.
  while (sandbox.runningHandlers() === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const inHandlers = sandbox.runningHandlers();
  const started = performance.now();
  await sandbox.close();
  // Prompt: the handlers are quick, so close() must not wait for the 5 s cut of the connections.
  expect(performance.now() - started).toBeLessThan(4_000);
  const statuses = await Promise.all(requests);
  // Created, or refused because the server was closing: never a 500 from a closed database.
  for (const status of statuses) expect([201, 503, 'connection closed']).toContain(status);
  expect(handled).toBeGreaterThan(0);
  // Every request that was in a handler when close() began got its response.
  expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(inHandlers);
  // The store is closed only now; a second close is a no-op.
  await sandbox.close();
  expect(sandbox.deps.store.db.open).toBe(false);
});
