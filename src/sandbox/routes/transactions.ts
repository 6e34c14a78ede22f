// GET /institutions/transactions: the institution's transactions, newest first, with filters.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ListEnvelope, ListTransactionsQuery, Transaction } from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { transactionService } from '../services/transactions.js';
import { listEnvelope, pagination, paging } from './common.js';

export const transactionRoutes: FastifyPluginAsyncTypebox<SandboxDeps> = async (app, deps) => {
  const transactions = transactionService(deps);
  app.get('/institutions/transactions', {
    onRequest: requireBearer(deps),
    schema: {
      summary: 'List transactions', tags: ['transactions'], auth: 'bearer',
      description: 'Newest first (createdAt, then id). `cardId` keeps one card\'s transactions; `cardStatus` filters on the card\'s current status.',
      querystring: ListTransactionsQuery,
      response: { 200: ListEnvelope(Transaction) },
    },
  }, async (request) => {
    const { page, limit, offset } = paging(request.query);
    const { merchantId, terminalId, cardId, cardStatus, transactionStatus } = request.query;
    const listed = transactions.list({ institutionId: principalOf(request).institutionId, merchantId, terminalId, cardId, cardStatus, transactionStatus, limit, offset });
    return listEnvelope(deps.dialect, 'Transactions retrieved successfully', listed.records, pagination(page, limit, listed.total));
  });
};
