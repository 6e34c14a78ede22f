// Help topics: `cardctl help <topic>` prints one of these, and README.md carries the same text
// between `<!-- topic:NAME -->` and `<!-- /topic -->` (test/unit/help.test.ts checks it;
// `node scripts/readme-topics.mjs` rewrites the README from here). Plain Markdown that reads
// well in a terminal: no headings (the README adds its own), tables and indented code.
import { DEFAULT_DIALECT, DIALECT_KEYS, readPath, type DialectKey } from '../api/dialect.js';
import { DEFAULT_CONCURRENCY, PIPELINED_CONCURRENCY } from '../bulk/defaults.js';
import { JQ_MEMORY, JQ_MOST_INPUT } from '../output/jq-limits.js';

export interface HelpTopic {
  name: string;
  summary: string;
  text: string;
}

const exitCodes = `Every command exits with one of these codes; scripts can branch on them.

| code | meaning |
|---|---|
| 0 | success |
| 1 | unexpected internal error (a bug: the message says so and how to report it) |
| 2 | usage or input error: unknown flag, missing value, bad file, invalid PIN/PAN/date, a profile that does not exist — nothing was sent; also a file or stdout that cannot be written (\`> /dev/full\`, a full disk): \`error: cannot write output: no space left on the device (ENOSPC)\` |
| 3 | authentication or permission: no credentials, 401, 403 |
| 4 | not found: 404 or an unknown identifier |
| 5 | rejected: any other 4xx (validation, conflict, limits); a decline with --expect-approved; a missed SLO of \`simulate load\`; a failed check of \`webhook certify\` or \`doctor\`; a \`webhook replay\` the webhook did not accept (non-2xx, unusable reply) |
| 6 | network: connection refused/reset, DNS, TLS, timeout — no answer; also a \`webhook replay\` that reached no webhook |
| 7 | server error: 5xx after retries |
| 8 | partial failure: a bulk command finished with some records failed |
| 130 | interrupted (Ctrl-C, SIGTERM, or SIGHUP: the terminal closed) |

A reader that goes away (\`cardctl cards list | head -1\`) is not an error: the run ends quietly
with exit 0.

Errors print one line \`error: <what happened>\` on stderr, often followed by a \`hint:\` line
saying what to do. With \`-o json\` the error is also written to stderr as one JSON object:
\`{"error":{"code","exitCode","message","status","details"}}\`.

    cardctl cards get 6650c0ffee >/dev/null 2>&1
    case $? in 0) echo found ;; 4) echo "no such card" ;; *) echo "failed" ;; esac
`;

const environment = `Flags win over the environment, which wins over the stored profile.

| variable | meaning |
|---|---|
| \`CARDCTL_PROFILE\` | stored profile to use (\`-p, --profile\`) |
| \`CARDCTL_BASE_URL\` | API base URL (\`--base-url\`) |
| \`CARDCTL_TOKEN\` | bearer access token; overrides the profile's |
| \`CARDCTL_API_KEY\` | API key for \`import\`; overrides the profile's |
| \`CARDCTL_WEBHOOK_SECRET\` | the webhook signing secret of \`webhook listen\` and \`webhook certify\` (or \`--secret-stdin\`) |
| \`CARDCTL_WEBHOOK_PREVIOUS_SECRET\` | the secret a rotation retired, which \`webhook certify\` checks is refused (or \`--previous-secret-stdin\`) |
| \`CARDCTL_OUTPUT\` | default output format (\`-o\`): table, json, ndjson, csv, raw |
| \`CARDCTL_DEBUG=1\` | log every HTTP request to stderr (\`--verbose\`) |
| \`CARDCTL_CONFIG_DIR\` | directory of \`config.json\` (default \`~/.config/cardctl\`) |
| \`CARDCTL_DATA_DIR\` | sandbox database and audit journal (default \`~/.local/share/cardctl\`) |
| \`CARDCTL_JOURNAL_DIR\` | audit journal only (default \`$CARDCTL_DATA_DIR/journal\`) |
| \`NO_COLOR\`, \`FORCE_COLOR\` | switch colour off, or on even when piped (\`--no-color\`) |
| \`CI\` | never prompt (\`--no-input\`) |
| \`HTTPS_PROXY\`, \`HTTP_PROXY\`, \`NO_PROXY\` | send requests through a proxy |
| \`NODE_EXTRA_CA_CERTS\` | PEM file of extra CA certificates (a private CA) |

Secrets are never read from argv: give tokens with \`CARDCTL_TOKEN\`, \`cardctl login --token-stdin\`
or the login prompt; PINs only from a hidden prompt or \`--pin-stdin\`.
`;

const files = `Where cardctl keeps things. The paths are Linux's; on macOS the two directories are
\`~/Library/Preferences/cardctl\` and \`~/Library/Application Support/cardctl\`, on Windows
\`%APPDATA%\\cardctl\\Config\` and \`%LOCALAPPDATA%\\cardctl\\Data\`.

| file | what it holds |
|---|---|
| \`~/.config/cardctl/config.json\` | profiles (base URL, credentials, PIN key, settings) and aliases; mode 0600 in a 0700 directory. \`CARDCTL_CONFIG_DIR\` or \`XDG_CONFIG_HOME\` moves it |
| \`~/.local/share/cardctl/sandbox.db\` | the database of \`cardctl sandbox serve\` (\`--db FILE\` elsewhere, \`--memory\` none). \`CARDCTL_DATA_DIR\` or \`XDG_DATA_HOME\` moves it |
| \`~/.local/share/cardctl/journal/journal.ndjson\` | the audit journal \`cardctl history\` reads, rotated to \`journal.1.ndjson\`, …; \`CARDCTL_JOURNAL_DIR\` moves it |
| \`~/.cache/cardctl/\` | Node's compiled code of cardctl (Node 22 and later), so later starts skip compiling it; this user's own, safe to delete. \`XDG_CACHE_HOME\` moves it; \`~/Library/Caches/cardctl\` on macOS, \`%LOCALAPPDATA%\\cardctl\\Cache\` on Windows. Nothing is ever written into cardctl's installation |
`;

const output = `Data goes to stdout; progress, warnings, errors and request logs go to stderr.

| format | what it prints |
|---|---|
| \`table\` | the default: a fitted, coloured table on a terminal; plain tab-separated rows when piped |
| \`json\` | the response's \`data\` (\`--json\` is short for \`-o json\`) |
| \`ndjson\` | one JSON record a line; streams page by page with \`--all\` |
| \`csv\` | a header row, then one row per record |
| \`raw\` | the response body exactly as the API sent it |

CSV is made to be opened in a spreadsheet, so a cell that a spreadsheet would run as a formula
(one starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return, or their full-width forms)
is written with a single quote in front: \`=HYPERLINK(…)\` becomes \`'=HYPERLINK(…)\`. A cell that is
a plain number (\`-5.00\`, \`+3\`, \`1e5\`) is left alone: it can only be read as that number.
json, ndjson and raw are never changed.

\`--fields a,b.c\` picks columns (table, csv) or properties (json, ndjson); dot paths reach into
nested objects; a column's header or computed value (a simulation's \`outcome\`) may be named too.
\`--fields\`, \`--jq\` and \`--template\` are checked before the first request, so their usage errors
(exit 2) mean nothing was sent: a write checks \`--fields\` against what its answer can hold (the
API's schema and the columns), a list against the columns and its first records; the error lists
the fields there are. \`-q, --quiet\` prints only identifiers, one a line, for
\`xargs\`. A single record prints as a two-column key/value table. Colour is for a terminal:
\`--no-color\` and \`NO_COLOR\` take it off everything, \`error:\` lines included; \`FORCE_COLOR=1\` keeps
it when piped (doctor's marks, a template's \`color\`), but piped tables stay plain tab-separated text.

Every format shows card numbers masked (first 6 and last 4 digits, text or number) and fields
named as secrets (a program's \`webHookConfig.secret\`, tokens, keys, passwords) as
\`[REDACTED]\`; \`--show-secrets\` shows those fields to you (with \`--no-input\` too, for scripts),
never to an MCP tool.

Tables (on a terminal or piped), key/value views, templates, status, error and bulk row lines show
control characters as escapes (\`\\x1b\`, \`\\x07\`, \`\\u202e\`): C0 and C1 controls, bidi overrides and
isolates, zero-width and other invisible format characters, so a value cannot drive the terminal or
disguise itself. json, ndjson and raw carry values exactly (but for the masking above), and \`--jq\`
prints strings raw, as \`jq -r\` does. csv and piped tables have the table's columns: most are the
values as sent, a few are formatted for reading: a transaction's \`Amount\` in major units (\`42.10\`
for \`000000004210\`), \`Currency\` as its code (\`NGN\` for \`566\`), card numbers masked, a card's
\`Expires\` (MM/YYYY) and \`Customer\` (the names joined). For the values exactly, use json or ndjson.

    cardctl cards list --all -o ndjson | jq -r 'select(.status == "active") | .id'
    cardctl cards list -q | xargs -n1 cardctl cards deactivate --yes
    cardctl tx list -o csv --fields id,amount,responseCode > transactions.csv

\`--jq EXPR\` filters the JSON that \`-o json\` would print (with \`--all\`, the array of every record)
with real jq, built in: each result on its own line, strings printed raw (with \`-o ndjson\`, other
values as one line of compact JSON, as \`jq -c\` prints them). Results stream as jq
produces them; a reader that goes away (\`| head\`) ends cardctl with exit 0, Ctrl-C with exit 130.
A bad expression exits 2 with jq's message (after the results printed before a run-time error).
The built-in jq has ${JQ_MEMORY} of memory and reads at most ${JQ_MOST_INPUT / 1024 / 1024} MiB of JSON (about 7,000
transactions): past that, \`--all --jq\` stops reading pages and exits 2, as does a filter that
runs jq out of memory. For more, pipe the records into a jq of your own:

    cardctl cards list --all --jq '.[] | select(.status == "active") | .id'
    cardctl tx list --all -o ndjson | jq -r 'select(.transactionStatus == "failed") | .id'

\`--template STR\` prints each record of a list (or the one record) with a Handlebars template;
\`{{.field}}\` and dot paths like \`{{.amounts.currency}}\` reach into the record, \`\\t\` and \`\\n\` are
a tab and a newline, and each record ends with a newline. Blocks: \`{{#if .x}}…{{else}}…{{/if}}\`,
\`{{#each .list}}{{.}}{{/each}}\`. Helpers: \`timeago DATE\`, \`localtime DATE\`,
\`money MINOR CURRENCY\` (minor units by the currency's exponent: ₦1,500.00), \`pad VALUE WIDTH\`
(negative: right-aligned), \`truncate VALUE WIDTH\`, \`color NAME VALUE\` (red, green, yellow, blue,
magenta, cyan, gray, bold, dim, or status; only on a terminal), \`upper\`, \`join LIST SEP\`, \`json\`.

    cardctl tx list --template '{{pad .id 26}}{{money .amounts.amount .amounts.currency}}\\t{{timeago .createdAt}}'

Tables on a terminal go through a pager: \`CARDCTL_PAGER\`, else \`PAGER\`, else \`less -FRX\`
(\`cat\` or an empty value: none). Never when piped, for other formats, or with \`--no-pager\`.
`;

const pinEncryption = `PINs never leave your machine in the clear, and never come from argv or the environment:
they are read from a hidden prompt (asked twice) or, with \`--pin-stdin\`, from stdin.

1. The PIN is checked first: 4 to 12 digits, and not trivially weak (\`1111\`, \`1234\`) unless
   \`--allow-weak-pin\` is given. A bad PIN is a usage error (exit 2) and nothing is sent.
2. It becomes an ISO 9564-1 PIN block: format 1 (random fill) by default, or format 0
   (XOR-ed with the card number) with \`profile set pinBlockFormat iso-0\`.
3. The block is encrypted with the institution's RSA PIN public key (2048 bits or more), with
   RSA-OAEP-SHA256 by default (\`profile set pinCipher\` for rsa-oaep-sha1 or rsa-pkcs1).
4. The API receives \`{ encryptedData, publicKeyFingerprint }\`: the ciphertext in hex and the
   SHA-256 of the key's DER SubjectPublicKeyInfo, so a key mismatch is caught at once.

The key comes from \`cardctl login --pin-key FILE\` (a PEM public key or certificate) and is
stored in the profile with its fingerprint; \`cardctl sandbox serve --profile NAME\` stores the
sandbox's key. \`cardctl auth status\` shows the fingerprint in use.

    printf '4821\\n' | cardctl cards pin reset 6650c0ffee --pin-stdin --yes
    printf '4821\\n7305\\n' | cardctl cards pin change 6650c0ffee --pin-stdin
`;

const scenarios = `\`cardctl simulate run FILE\` plays a sequence of simulated switch messages (YAML or JSON) and
checks their results. Step keys mirror the \`simulate\` flags in camelCase;
\`{{steps.<id>.<field>}}\` refers to an earlier step's result and \`{{vars.<name>}}\` to a variable
(\`vars:\` in the file, or \`--set name=value\`); \`expect\` compares result fields. It prints a
pass/fail line per step and exits 5 when an expectation fails. A file holds at most 1 MiB and
1,000 steps, nests at most 100 levels (each column of indentation counts as one) and expands at
most 100 aliases; the same bounds hold for every YAML file cardctl reads. The sandbox is
shared, so a run leaves it as it found it: a step's webhook faults (its institution's messages
only) are taken off when the step ends, and the stand-in policies its steps changed are put back
when the run ends, however it ends (done, Ctrl-C, SIGTERM, SIGHUP, an error).

    name: authorize then reverse
    vars:
      card: ""                         # --set card=CARD_ID
    steps:
      - id: auth
        intent: authorization          # authorization | financial | reversal
        card: "{{vars.card}}"          # or pan / expiry / account
        amount: 250.00
        flow: purchase                 # purchase | cash_withdrawal | balance_inquiry | refund
        channel: pos                   # pos | atm | web
        method: chip                   # chip | magstripe | contactless | manual | ecom | moto
        forward: false                 # true: ask your webhook instead of the approving stub
        set: { "43": "ACME STORE LAGOS NG" }
        expect: { responseCode: "00", transactionStatus: pending }
      - intent: reversal
        originalTx: "{{steps.auth.transactionId}}"
        amount: "{{steps.auth.amount}}"
        expect: { responseCode: "00" }

    cardctl simulate run auth-then-reversal.yaml --set card=6650c0ffee

The card lifecycle (sandbox extensions; examples in examples/scenarios/lifecycle/). Besides the
three intents, a step's intent may be a lifecycle message or a sandbox action:

    intent: increment                  # originalTx, amount: raise an authorization's hold
    intent: completion                 # originalTx, amount: capture it (less or more than held)
    intent: refund                     # originalTx, amount: refund a purchase (never past it)
    intent: advice                     # card fields, amount, networkCode: the network decided
    intent: repeat                     # tx: the network resends a message (0101, 0421)
    intent: expire                     # originalTx: release an authorization's hold now
    intent: clock                      # advance: 169h: move the switch's clock; due holds expire
    intent: deliver-advices            # deliver unacknowledged advices now
    intent: stand-in                   # program, standIn: {mode: approve, maxAmount, dailyAmount}
    intent: check                      # tx: only read a transaction's state for expect
    intent: wait                       # for: 2s: let real time pass (up to an hour)

Any step may add faults on the webhook path for itself alone (put back after the step), and
expect the state after it: the stored transaction, its lifecycle (amounts in major units), the
sandbox's record of each webhook call for the transaction and its linked messages, oldest first
(\`exchanges.length\`, \`exchanges.N.\` kind, mti, attempt, verdict, reason, responseCode,
response.status, faults: any handler), and what \`cardctl webhook listen\` itself received with
its STAN and RRN (\`webhook.\` deliveries, repeats, signature, messages: its own account and its
signature verdict, so only with it as the webhook). Misspelt \`exchanges.\` and \`webhook.\` paths
are refused when the file loads. \`within\` reads the state again until the expectations hold
(advices and timeout reversals are sent in the background):

      - id: auth
        intent: authorization
        card: "{{vars.card}}"
        amount: 150.00
        forward: true
        webhookFaults: reply-lost=1    # delay, deadline, duplicate, reset, reply-lost, garbage
        webhookFaultsSeed: 7
        within: 8s
        expect:
          responseCode: "96"
          transaction.standIn.decision: "96"
          transaction.webhookFaults.0: reply-lost
          lifecycle.amounts.held: 0    # requested, authorized, held, captured, released, refunded
          lifecycle.messages.1.messageKind: timeout-reversal
          exchanges.length: 2          # the authorization, then the timeout reversal
          exchanges.0.verdict: no-answer   # accepted | refused | no-answer
          exchanges.1.mti: "0420"
          webhook.signature: valid     # webhook listen only: valid | invalid | unchecked (no secret)
`;

const bulk = `\`cards deactivate\`, \`activate\`, \`renew\` and \`customer update\` act on many cards
with \`--from-file FILE\`; \`cards create\` issues many with \`--rows-from-file FILE\` (its
\`--from-file\` stays one card's JSON body). Rows are plain ids one a line (\`.txt\`, or
\`cards list -q\`), or a \`.csv\` (header row), \`.ndjson\` or \`.json\` array whose rows have an
\`id\` and the verb's fields, named like its flags (\`expiration\`; \`email\`, \`first-name\`, …).
\`-\` reads stdin and pipes work; their format is recognised from the first bytes, or given with
\`--format\`. The file is streamed, never loaded whole. \`deactivate\` and \`activate\` also take
\`--where status=STATUS,search=TEXT\`: the matching cards are listed first, then changed.

A created card is created once per \`reference\`. A row without one gets a reference derived
from its content, \`row-\` and 32 hex digits of the SHA-256 of its fields and of the flags that
fill them (never the PIN or the PAN; not the file's name or the row's number), written to the
report: the same row in any file is the same card. A card found under a row's reference is
\`already\` only when it is that row's card (program, cardholder's names, email and phone,
account number), and usable as the row asks (active, or the status the row gives it, and not
past its expiry month); otherwise the row fails with \`REFERENCE_TAKEN\` or, for a suspended or
expired card (a replacement), \`CARD_NOT_USABLE\`. References starting with
\`import:\` are refused: an imported card is recorded as \`import:<realId>\`. Each card gets a
random PIN generated and encrypted here and never shown, unless \`--pins-from-column NAME\`
names a column of a file only its owner can read.

| flag | what it does |
|---|---|
| \`--concurrency N\` | requests in flight (default ${DEFAULT_CONCURRENCY}; ${PIPELINED_CONCURRENCY} for \`activate\` and \`deactivate\`, whose requests are pipelined) |
| \`--report FILE\` | NDJSON: a first line naming the run, then a line per row as it settles: \`row\`, \`id\`, \`outcome\` (done, already, skipped, failed), \`code\` and \`message\` when failed |
| \`--resume REPORT\` | continue the run of that report: rows it records as done are skipped, new lines appended (a report not there yet is started); \`--resume\` alone continues the \`--report\` file, as \`import\` also takes it |
| \`--shard K/N\` | only rows K, K+N, K+2N, … (row numbers of the file), for N runners each with its own report; K and N whole numbers written plainly, 1 ≤ K ≤ N ≤ 1000 |
| \`--dry-run\` | every row checked and what it would change printed; nothing is sent |
| \`--reason TEXT\` | kept in the audit journal, one entry per card (\`renew\`: the renewal reason) |

Exactly once: a row whose request may have applied (timeout, reset, 5xx) is checked before it is
sent again; a card already at its target expiry is \`already\`, never renewed twice. A 429 pauses
the whole run for its Retry-After; it does not fail rows. Progress goes to stderr: a bar on a
terminal, otherwise a line per 5% of the rows with the rate and ETA (\`import\` too). The counts
end on stderr; the exit code is 8 when any row failed, 130 after Ctrl-C (run again with
\`--resume\`). On a production profile the operator types the number of cards; scripts pass
\`--yes --confirm-production\`.

A report belongs to one verb and one input. Its first line names its run,
\`{"run":{"verb":"renew","input":"sha256:…","shard":"1/2","source":"renewals.csv"}}\`: \`input\`
is the SHA-256 of the input's bytes (stdin and pipes are first copied to a temporary file only
you can read, hashed, and deleted at the end; \`--where\`: of the ids listed), \`shard\` is there
with \`--shard\`, \`source\` is only shown. A run that read its whole input ends its report with
\`{"end":{"rows":N}}\`. \`--resume\` refuses, with exit 2 and the report left as it was, a report
of another verb, input (another file, or this one edited: a fixed file is a new run with a new
\`--report\`, and its rows done before come back as \`already\`) or shard; a report without that
first line, or with a line that is not a report's (a line torn by a killed run excepted); and
the input file itself. A row the report records as done is skipped only when the report's
line names the same card (or reference); otherwise it fails with \`RESUME_MISMATCH\`.
\`--from-file -\` with nothing on stdin is a usage error (exit 2), not a run of 0 rows.

\`cardctl cards report merge REPORT…\` joins the shards' reports into one, a line per row in row
order (stdout, or \`--out FILE\`), with the counts on stderr. It refuses (exit 2, nothing
written) reports of different runs, a shard given twice or not given, and a row in two
reports; it exits 8 when any row failed, or when rows are missing (a shard that did not finish:
the rows are named; resume it, then merge again). jq joins them as well, unchecked:

    jq -s -c 'map(select(.row)) | sort_by(.row)[]' report-1.ndjson report-2.ndjson > report.ndjson
`;

const deployment = `A deployment of the API may name the list query parameters its own way, tell that a list has
more pages differently, serve smaller pages or put an error's message elsewhere. The profile's
dialect says how; its defaults are what the sandbox speaks, so a profile without one is unchanged.

| setting | default | what it is |
|---|---|---|
${(Object.keys(DIALECT_KEYS) as DialectKey[]).map((key) => `| \`${key}\` | \`${String(readPath(DEFAULT_DIALECT, key))}\` | ${DIALECT_KEYS[key]} |`).join('\n')}

Set them one at a time, or from a JSON or YAML file holding any of them (the rest keep their
default; \`""\` or the default value sets one back):

    cardctl profile set params.cards.limit pageSize
    cardctl profile set-dialect dialect.yaml
    cardctl profile show

\`--all\` reads from page 1 at the largest page size (\`maxPageSize\`, which also bounds
\`--limit\`). With \`paging.style: metadata\` it stops at the page count found at \`paging.pages\`
(a body without one: at the first page shorter than the page size); with \`short-page\` at the
first page shorter than the page size. A page that starts with the record the page before
started with means the deployment ignored the page number: \`--all\` stops with an error naming
\`params.<list>.page\` rather than read the same page forever.

\`cardctl doctor --deployment\` checks the settings against the deployment with harmless reads;
\`cardctl sandbox serve --dialect FILE\` starts a sandbox that speaks a dialect file.
`;

const mcp = `\`cardctl mcp\` runs a Model Context Protocol server on stdin/stdout for one profile, for
an AI assistant (Claude Desktop, an IDE, any MCP client) to start. Register it in the client's
configuration, e.g. Claude Desktop's \`claude_desktop_config.json\`:

    { "mcpServers": { "cardctl": { "command": "cardctl", "args": ["mcp", "--profile", "sandbox"] } } }

Tools are cardctl's commands, named after their path with \`_\` (\`cards_list\`, \`tx_show\`,
\`cards_customer_update\`, \`simulate_authorization\`); their inputs are the command's arguments
and flags (a flag's choices an enum, counts and amounts numbers), and the result is the command's
\`-o json\` output, card numbers masked, sent once as text: compact (a transaction's card and
institution, a card's program, given as their id unless \`fields\` names them), at most 256 kB
(a longer list says which \`page\` and \`limit\` come next). Text written by others (cardholders,
merchants, webhooks, a server's error messages) is moved to a last part that starts with
"UNTRUSTED DATA" and is referred to as ⟦u1⟧, ⟦u2⟧…. An error is the command's one-line message
and its hint. File inputs must be inside the directory the server was started in.

| offered | tools |
|---|---|
| always | reads: cards list/get, tx list/show/summary, oauth list, history, doctor, auth status, profile list/show (secrets masked) |
| on a sandbox profile | every simulation, stopped at 60 s: the intents and lifecycle messages, \`simulate run\`, \`simulate load\` (sending for at most 50 s, 10,000 requests); \`webhook exchanges\` (not --as-scenario) and \`webhook replay\` (not --to) |
| with \`--allow-write GROUP…\` | the changes of those groups (cards, oauth, users, import): create, renew, activate, deactivate, customer update, PIN reset, OAuth applications, users, imports |
| never | login, logout, auth token, profile use/set/set-dialect/remove, alias, completion, sandbox serve, webhook listen, tx tail, demo, api, PIN change, report merge, mcp |

Every tool that changes something asks for a \`reason\` (at most 500 characters). Each of its
calls is in the audit journal (\`cardctl history\`) with \`"via": "mcp"\`, the client's name and
version, and that reason.

On a production profile a change also needs \`--allow-production-writes\`, given by you in the
client's configuration: without it every change is refused. A client that can ask you (MCP
elicitation) asks you to confirm each production change as well; an assistant cannot answer
the production confirmation for you.

No token, API key, webhook secret, PIN or card number is ever a tool input: a PIN reset sets a
random PIN made and encrypted on this machine, never shown. Help topics are resources:
\`cardctl-help://<topic>\`. Only the protocol goes to stdout; notes go to stderr.
`;

const exchanges = `The sandbox records every HTTP call its switch makes to a card program's webhook: authorizations,
financials, balance inquiries, lifecycle messages (increment, completion, refund, reversal),
advices and each retry, reversal repeats, network repeats, both copies of a duplicate delivery,
and replays. Each record holds the request as sent (the signature and the program's secret header
redacted, the card number masked, track data, PIN block and chip data redacted), the reply
(status, headers, the body up to 64 KiB, card numbers masked; none when nothing usable came back),
the latency, the verdict (accepted, refused: an answer the network could not take, no-answer:
timeout, unreachable, reset, reply lost) with its reason, the response code, the faults injected
and the attempt (1, then 2, 3, … for advice retries and repeats).

    cardctl webhook exchanges                       # newest first; --wide adds tx, replay of, faults, URL
    cardctl webhook exchanges --failed --since 30m  # refused or no answer
    cardctl webhook exchanges --tx TX_ID -o json    # a transaction's (and its linked messages'), whole
    cardctl tx show TX_ID --exchanges               # the transaction, then each request beside its reply

\`cardctl webhook replay EXCHANGE_ID\` sends a recorded request again as it was, signed afresh with the
program's current secret and scheme (Standard Webhooks: the message's own webhook-id, as on every
delivery of it), and prints the new exchange (\`replayOf\` names the first).
\`--keep-timestamp\` signs it with the original timestamp instead: a handler that checks freshness
refuses it once it is older than its tolerance (300 s by default), which tests replay protection.
\`--to URL\` sends it elsewhere: this machine only, with the scope read:card_program, signed but
without the program's secret header. A replay changes no transaction and no amount; it exits 0
only when the webhook accepted it (6: not reached, 5: not accepted), the exchange printed either way.

\`cardctl webhook exchanges --as-scenario FILE [--tx ID …] [--keep-spacing]\` writes a scenario
(\`cardctl help scenarios\`) of the messages behind those exchanges, in order, in forward mode:
each step as it was asked (kind, card, amount, flow, channel, currency, its original, the webhook
faults it met), expecting the response code seen and, where every message of an original is in
the file, the original's lifecycle amounts. A message no fault spoiled is expected to be accepted
(\`exchanges.0.verdict: accepted\`): one the handler gave no usable answer expects that, not the
stand-in's code or amounts, so the file fails against the handler until it is fixed. Retries, repeats, replays and what the network sends
on its own (stand-in advices, timeout reversals) are not steps: they follow from the faults. With
--keep-spacing, \`wait\` steps keep the time between messages. The file is written whole or not
at all and never replaced without --force. \`cardctl simulate run FILE\` replays it.

The records live in the sandbox's memory (lost when it stops), at most 10,000 and 64 MiB, the
oldest dropped first; \`sandbox serve --exchanges-max N --exchanges-max-bytes SIZE\` changes the
bounds. The request in the clear is kept beside each record only to replay it: never served, never
written to disk. An institution sees only its own exchanges (GET /sandbox/webhook-exchanges).
`;

const load = `\`cardctl simulate load\` drives a webhook through the sandbox from this machine, at a rate
(--rate 50/s, an open loop; --ramp 30s rises to it first) or a concurrency, and checks SLOs against its report: --max-p99,
--max-timeouts, --max-errors (requests without a valid answer), --min-approval (exit 5 when one
is missed).

To load a webhook past what one machine sends, \`--export artillery DIR\` writes the same signed
traffic as an Artillery script instead of sending it: the script (--ramp, --rate and --duration
as its phases, the SLO flags as \`ensure\` conditions, errors at most 0% unless --max-errors says
otherwise), a processor that builds, signs and checks each message with the sandbox's own rules
(it needs only Node), the run's test cards in the clear in a 0600 file, and a README. The
messages go straight to the program's webhook URL (or --url). The secret is read from
CARDCTL_WEBHOOK_SECRET when Artillery runs, never written.

    cardctl simulate load --rate 500/s --ramp 30s --duration 5m --cards-from-list 200 --export artillery ./load
    ARTILLERY_DISABLE_TELEMETRY=true artillery run ./load/cardctl-load.yml
    artillery run-fargate --count 10 --region eu-west-1 --secret CARDCTL_WEBHOOK_SECRET ./load/cardctl-load.yml

Artillery is yours to install (npm install -g artillery). docs/load-past-one-machine.md has the
Fargate and Lambda commands, how the runners' results combine, and what each threshold means.
`;

export const HELP_TOPICS: readonly HelpTopic[] = [
  { name: 'exit-codes', summary: 'what each exit code means', text: exitCodes },
  { name: 'environment', summary: 'environment variables cardctl reads', text: environment },
  { name: 'files', summary: 'where profiles, the sandbox database and the audit journal are kept', text: files },
  { name: 'output', summary: 'output formats, --fields, --quiet, --jq, --template, the pager', text: output },
  { name: 'pin-encryption', summary: 'how PINs are read, checked and encrypted', text: pinEncryption },
  { name: 'scenarios', summary: 'scenario files for `simulate run`', text: scenarios },
  { name: 'bulk', summary: 'acting on many cards: --from-file, --report, --resume, --shard, report merge', text: bulk },
  { name: 'deployment', summary: "a deployment's own parameter names, paging, page size and error shape", text: deployment },
  { name: 'mcp', summary: '`cardctl mcp`: the tools an AI assistant gets, --allow-write, production', text: mcp },
  { name: 'exchanges', summary: 'the webhook exchanges the sandbox records: list, replay, export as a scenario', text: exchanges },
  { name: 'load', summary: '`simulate load`: SLOs, and load past one machine as an Artillery script (--export artillery)', text: load },
];

export const HELP_TOPIC_NAMES: readonly string[] = HELP_TOPICS.map((t) => t.name);

export function findHelpTopic(name: string): HelpTopic | undefined {
  return HELP_TOPICS.find((t) => t.name === name);
}
