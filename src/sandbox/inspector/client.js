// The inspector page's script: loads the recent transactions and webhook exchanges, then keeps
// them current from the sandbox's event stream. Everything shown comes from records whose text
// is untrusted (a webhook's reply, a merchant name): it goes into the page as text nodes only.
'use strict';

(() => {
  const token = new URLSearchParams(location.search).get('token') || '';
  const state = {
    transactions: new Map(),
    exchanges: new Map(),
    selectedTransaction: null,
    selectedExchange: null,
    lifecycle: null,
    exchangeLog: true,
  };
  const byId = (id) => document.getElementById(id);
  const filters = { failed: byId('filter-failed'), card: byId('filter-card'), kind: byId('filter-kind') };

  /** An element with attributes and children; strings become text nodes, never markup. */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== undefined && value !== null) node.setAttribute(name, String(value));
    }
    for (const child of children.flat()) {
      if (child !== undefined && child !== null) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  async function api(path, init) {
    const response = await fetch(path, { ...init, headers: { 'x-inspector-token': token, ...(init && init.headers) } });
    const text = await response.text();
    let body = null;
    try { body = text ? JSON.parse(text) : null; } catch { body = null; }
    if (!response.ok) {
      const message = body && (body.message || (body.error && body.error.message));
      const error = new Error(`${response.status}: ${message || text.slice(0, 200)}`);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  function notice(text) {
    const node = byId('notice');
    node.textContent = text || '';
    node.hidden = !text;
  }

  // ---------- filters ----------
  const kindOf = (tx) => tx.messageKind || intentOf(tx);
  function intentOf(tx) {
    const mti = String(tx.mti || '');
    if (mti.startsWith('04')) return 'reversal';
    if (mti.startsWith('02')) return 'financial';
    if (mti.startsWith('01')) return 'authorization';
    return mti;
  }
  const cardText = (tx) => [tx.card && tx.card.id, tx.card && tx.card.pan, tx.cardData && tx.cardData.pan].filter(Boolean).join(' ');
  // Which response codes are approvals is the server's list (the page's data-approved-codes).
  const approvedCodes = new Set((document.body.dataset.approvedCodes || '').split(' ').filter(Boolean));
  const approved = (code) => approvedCodes.has(code);
  const failedTransaction = (tx) => tx.transactionStatus === 'failed' || !approved(tx.responseCode);
  const failedExchange = (x) => x.verdict !== 'accepted';

  function matches(kind, failed, cards) {
    if (filters.failed.checked && !failed) return false;
    if (filters.kind.value && kind !== filters.kind.value) return false;
    const wanted = filters.card.value.trim().toLowerCase();
    return !wanted || cards.toLowerCase().includes(wanted);
  }
  const showTransaction = (tx) => matches(kindOf(tx), failedTransaction(tx), cardText(tx));
  function showExchange(x) {
    const tx = x.transactionId ? state.transactions.get(x.transactionId) : undefined;
    return matches(x.kind, failedExchange(x), [x.cardId, tx && cardText(tx)].filter(Boolean).join(' '));
  }

  function noteKind(kind) {
    if (!kind || [...filters.kind.options].some((option) => option.value === kind)) return;
    filters.kind.append(el('option', { value: kind }, kind));
  }

  // ---------- lists ----------
  const time = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');
  const money = (amount, currency) => `${amount === undefined || amount === null ? '' : amount}${currency ? ` (${currency})` : ''}`;
  const newestFirst = (a, b) => String(b[1]).localeCompare(String(a[1]));

  function renderTransactions(fresh) {
    const rows = [...state.transactions.values()].filter(showTransaction)
      .map((tx) => [tx, tx.createdAt]).sort(newestFirst).map(([tx]) => {
        const code = tx.responseCode || '';
        return el('tr', {
          'data-id': tx.id,
          class: [tx.id === state.selectedTransaction ? 'picked' : '', tx.id === fresh ? 'fresh' : ''].join(' ').trim() || null,
        },
        el('td', null, time(tx.createdAt)), el('td', null, kindOf(tx)), el('td', null, tx.mti),
        el('td', null, (tx.cardData && tx.cardData.pan) || (tx.card && tx.card.pan) || ''),
        el('td', null, money(tx.amount, tx.amounts && tx.amounts.currency)),
        el('td', null, tx.transactionStatus),
        el('td', { class: approved(code) ? 'code-ok' : 'code-bad' }, code));
      });
    byId('transactions').tBodies[0].replaceChildren(...rows);
    byId('transactions-empty').hidden = rows.length > 0;
  }

  function renderExchanges(fresh) {
    const items = [...state.exchanges.values()].filter(showExchange)
      .map((x) => [x, x.at]).sort(newestFirst).map(([x]) => el('li', {
        'data-id': x.id,
        'data-transaction-id': x.transactionId,
        'data-replay-of': x.replayOf,
        class: [x.id === state.selectedExchange ? 'picked' : '', x.id === fresh ? 'fresh' : ''].join(' ').trim() || null,
      },
      el('span', null, time(x.at)), el('span', null, `${x.kind} ${x.mti}`),
      el('span', { class: `verdict-${x.verdict}` }, x.verdict),
      el('span', null, x.responseCode || ''),
      x.attempt > 1 ? el('span', null, `attempt ${x.attempt}`) : null,
      x.replayOf ? el('span', null, 'replay') : null));
    byId('exchanges').replaceChildren(...items);
    byId('exchanges-empty').textContent = state.exchangeLog ? 'No webhook exchanges yet.' : 'This sandbox keeps no exchange log.';
    byId('exchanges-empty').hidden = items.length > 0;
  }

  // ---------- detail: a lifecycle, an exchange ----------
  async function pickTransaction(id) {
    state.selectedTransaction = id;
    renderTransactions();
    await loadLifecycle(id);
  }

  async function loadLifecycle(id) {
    const target = byId('lifecycle');
    try {
      const body = await api(`/sandbox/inspector/transactions/${encodeURIComponent(id)}/lifecycle`);
      if (state.selectedTransaction !== id) return;
      state.lifecycle = body.data;
      renderLifecycle(body.data);
    } catch (error) {
      target.replaceChildren(el('p', { class: 'code-bad' }, `lifecycle: ${error.message}`));
    }
  }

  function renderLifecycle(life) {
    const amounts = ['requested', 'authorized', 'held', 'captured', 'released', 'refunded']
      .map((name) => el('span', { 'data-amount': name }, el('b', null, name), money(life.amounts[name], life.currency)));
    const steps = life.messages.map((message) => el('li', { 'data-id': message.transactionId },
      `${time(message.createdAt)}  ${message.messageKind} ${message.mti}  ${money(message.amount, life.currency)}  → ${message.responseCode} (${message.transactionStatus})`));
    byId('lifecycle').replaceChildren(
      el('h3', null, `Lifecycle of ${life.originalTransactionId} (${life.transactionStatus})`),
      el('div', { class: 'amounts' }, amounts),
      el('ol', { class: 'timeline' }, steps));
  }

  function pickExchange(id) {
    state.selectedExchange = id;
    renderExchanges();
    renderExchange(state.exchanges.get(id));
  }

  const pretty = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  /** A reply's text, indented when it is JSON; anything else exactly as it came. */
  function replyText(text) {
    try {
      const parsed = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object') return JSON.stringify(parsed, null, 2);
    } catch {
      // not JSON: shown as it came
    }
    return text;
  }
  const headerLines = (headers) => Object.entries(headers || {}).map(([name, value]) => `${name}: ${value}`).join('\n');

  function renderExchange(x) {
    const target = byId('exchange-detail');
    if (!x) { target.replaceChildren(); return; }
    const reply = x.response
      ? [el('p', null, `HTTP ${x.response.status}${x.response.truncated ? ' (truncated)' : ''}`), el('pre', { class: 'reply-headers' }, headerLines(x.response.headers)), el('pre', { class: 'reply-body' }, replyText(x.response.body))]
      : [el('p', { class: 'code-bad' }, 'nothing came back')];
    const replay = el('button', { type: 'button', class: 'replay' }, 'Replay');
    replay.addEventListener('click', () => replayExchange(x.id, replay));
    target.replaceChildren(
      el('h3', null, `Exchange ${x.id}`),
      el('div', { class: 'facts' },
        el('span', null, `${x.kind} ${x.mti}, attempt ${x.attempt}`),
        el('span', { class: `verdict verdict-${x.verdict}` }, x.verdict),
        x.reason ? el('span', { class: 'reason' }, x.reason) : null,
        x.responseCode ? el('span', null, `field 39: ${x.responseCode}`) : null,
        el('span', null, `${x.latencyMs} ms`),
        x.faults && x.faults.length ? el('span', null, `faults: ${x.faults.join(', ')}`) : null,
        x.replayOf ? el('span', null, `replay of ${x.replayOf}`) : null,
        replay),
      el('p', { class: 'replay-result', role: 'status' }),
      el('div', { class: 'sides' },
        el('div', { class: 'request' }, el('h4', null, 'Request'), el('p', null, `${x.request.method} ${x.request.url}`),
          el('pre', { class: 'request-headers' }, headerLines(x.request.headers)), el('pre', { class: 'request-body' }, pretty(x.request.body))),
        el('div', { class: 'reply' }, el('h4', null, 'Reply'), reply)));
  }

  async function replayExchange(id, button) {
    const result = byId('exchange-detail').querySelector('.replay-result');
    button.disabled = true;
    result.textContent = 'replaying…';
    try {
      const replayed = await api(`/sandbox/inspector/webhook-exchanges/${encodeURIComponent(id)}/replay`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
      });
      const record = replayed && replayed.data ? replayed.data : replayed;
      addExchange(record);
      result.textContent = `replayed as ${record.id}: ${record.verdict}`;
    } catch (error) {
      result.textContent = `replay failed: ${error.message}`;
      result.classList.add('code-bad');
    } finally {
      button.disabled = false;
    }
  }

  // ---------- records in ----------
  function addTransaction(tx) {
    state.transactions.set(tx.id, tx);
    noteKind(kindOf(tx));
    renderTransactions(tx.id);
    const life = state.lifecycle;
    if (life && state.selectedTransaction && (tx.id === life.originalTransactionId || tx.originalTransactionId === life.originalTransactionId)) {
      loadLifecycle(state.selectedTransaction);
    }
  }

  function addExchange(x) {
    if (!x || !x.id) return;
    state.exchanges.set(x.id, x);
    noteKind(x.kind);
    renderExchanges(x.id);
    if (state.selectedExchange === x.id) renderExchange(x);
  }

  async function loadRecent() {
    try {
      const transactions = await api('/sandbox/inspector/transactions?limit=50');
      for (const tx of transactions.data) {
        state.transactions.set(tx.id, tx);
        noteKind(kindOf(tx));
      }
      renderTransactions();
    } catch (error) {
      notice(`transactions: ${error.message}`);
    }
    try {
      const exchanges = await api('/sandbox/inspector/webhook-exchanges?limit=50');
      for (const x of exchanges.data || []) {
        state.exchanges.set(x.id, x);
        noteKind(x.kind);
      }
      state.exchangeLog = true;
    } catch (error) {
      state.exchangeLog = error.status !== 404;
      if (error.status !== 404) notice(`webhook exchanges: ${error.message}`);
    }
    renderExchanges();
  }

  function connect() {
    const status = byId('status');
    const stream = new EventSource(`/sandbox/inspector/events?token=${encodeURIComponent(token)}`);
    let dropped = false;
    stream.addEventListener('open', () => {
      status.textContent = 'live';
      status.classList.add('live');
      // Events sent while the stream was down are not resent: read the lists again.
      if (dropped) loadRecent();
    });
    stream.addEventListener('error', () => {
      dropped = true;
      status.classList.remove('live');
      // Closed for good: the answer was not a stream (a sandbox restarted has a new token).
      status.textContent = stream.readyState === EventSource.CLOSED ? 'disconnected: open the link `sandbox serve` printed' : 'reconnecting…';
    });
    stream.addEventListener('transaction', (event) => addTransaction(JSON.parse(event.data)));
    stream.addEventListener('exchange', (event) => addExchange(JSON.parse(event.data)));
  }

  byId('transactions').tBodies[0].addEventListener('click', (event) => {
    const row = event.target.closest('tr[data-id]');
    if (row) pickTransaction(row.dataset.id);
  });
  byId('exchanges').addEventListener('click', (event) => {
    const item = event.target.closest('li[data-id]');
    if (item) pickExchange(item.dataset.id);
  });
  byId('filters').addEventListener('input', () => { renderTransactions(); renderExchanges(); });
  byId('filters').addEventListener('submit', (event) => event.preventDefault());

  loadRecent().then(connect);
})();
