#!/usr/bin/env node
// The floor of forward mode, the peer bench/simulate.mjs measures beside the sandbox: the least a
// Node process does for each forwarded message. fastify parses the JSON body, libsql inserts a row
// (the message awaiting its answer), undici POSTs the message to the webhook (keep-alive pool),
// libsql writes the reply to the row, fastify answers. No authentication, checks, limits, STAN,
// signing, record or schema validation: what is left is the HTTP in, the HTTP out and two writes.
//
//   node bench/lib/forwarder.mjs WEBHOOK_URL   → prints its own URL (POST a switch message to it)
import Fastify from 'fastify';
import Database from 'libsql';
import { Agent, request } from 'undici';

const webhook = process.argv[2];
if (!webhook) throw new Error('usage: node bench/lib/forwarder.mjs WEBHOOK_URL');
const db = new Database(':memory:');
db.exec('CREATE TABLE messages (id INTEGER PRIMARY KEY, state TEXT NOT NULL, message TEXT NOT NULL, reply TEXT)');
const insert = db.prepare("INSERT INTO messages (state, message) VALUES ('awaiting', ?)");
const answer = db.prepare('UPDATE messages SET state = ?, reply = ? WHERE id = ?');
const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 128 });

const app = Fastify();
app.post('/forward', async (req) => {
  const body = JSON.stringify(req.body);
  const { lastInsertRowid } = insert.run(body);
  const res = await request(webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher });
  const reply = await res.body.json();
  answer.run(reply['39'] === '00' ? 'approved' : 'declined', JSON.stringify(reply), lastInsertRowid);
  return { status: 'success', data: { responseCode: reply['39'], response: reply } };
});
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`http://127.0.0.1:${app.server.address().port}/forward`);
