// GET /institutions/transactions: the institution's transactions, newest first, with filters.
import type { FastifyInstance } from 'fastify';
import { ListEnvelope, ListTransactionsQuery, Transaction } from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { pagination, paging } from './common.js';

export async function transactionRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  app.get<{ Querystring: ListTransactionsQuery }>('/institutions/transactions', {
    onRequest: requireBearer(deps),
    schema: {
      summary: 'List transactions', tags: ['transactions'], auth: 'bearer',
      description: 'Newest first (createdAt, then id). `cardStatus` filters on the card\'s current status.',
      querystring: ListTransactionsQuery,
      response: { 200: ListEnvelope(Transaction) },
    },
  }, async (request, reply) => {
    const { institutionId } = principalOf(request);
    const { page, limit, offset } = paging(request.query);
    const { merchantId, terminalId, cardStatus, transactionStatus } = request.query;
    const { records, total } = deps.store.transactions.list({ institutionId, merchantId, terminalId, cardStatus, transactionStatus, limit, offset });
    // Stored records are already the API's JSON: no parse and re-serialise.
    const head = JSON.stringify({ statusCode: 200, message: 'Transactions retrieved successfully' });
    return reply.type('application/json').send(
      `${head.slice(0, -1)},"data":[${records.join(',')}],"pagination":${JSON.stringify(pagination(page, limit, total))}}`,
    );
  });
}
