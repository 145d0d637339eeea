// test/gateway/load_fairness.mjs - one account's slow database work must not stall another's
// (issue 23). Account A's table is locked by a transaction (run.sh holds it for a few seconds)
// while 16 clients of A keep querying it, so every database worker of A waits; meanwhile account
// B queries its own table and a client with a wrong key asks for refusals. B's reads and the
// refusals are timed, 40 of each started 100 ms apart while A waits. Every request comes on a connection of its own, as short-lived clients'
// do, so that any HTTP thread of the gateway may take it (a gateway whose HTTP threads wait on
// the database then has none left). Bounded: 40 requests of each kind, 16 clients of A for at
// most 10 s.
//   node load_fairness.mjs --port N --a NAME:KEY --a-table T --b NAME:KEY --b-table T [--max-median-ms 100]
// Prints the medians and p95s, one check per property, and "N passed, N failed".
import { account, args, ok, req, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const ACCT_A = account(A.a);
const ACCT_B = account(A.b);
const MAX_MEDIAN = Number(A['max-median-ms'] ?? 100);

const pct = (xs, p) => { const s = [...xs].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

let stop = false;
const deadline = Date.now() + 10000;
let aStarted = 0;
const aStatuses = {};
const aClients = Array.from({ length: 16 }, async (_, i) => {
	await new Promise((res) => setTimeout(res, 40 * i));
	while (!stop && Date.now() < deadline) {
		aStarted++;
		const r = await req({ port: PORT, account: ACCT_A, path: `/${A['a-table']}()` });
		aStatuses[r.status] = (aStatuses[r.status] ?? 0) + 1;
	}
});
await new Promise((res) => setTimeout(res, 1000));	/* A's clients are all waiting by now */

// n requests started every 100 ms (not one after the other's answer, so that a stall shows in
// each of them), all within the lock's few seconds
const timed = async (n, make) => {
	const runs = [];
	for (let i = 0; i < n; i++) {
		runs.push(make());
		await new Promise((res) => setTimeout(res, 100));
	}
	const rs = await Promise.all(runs);
	return { ms: rs.map((r) => r.ms), statuses: rs.map((r) => r.status) };
};
const [b, refusals] = await Promise.all([
	timed(40, () => req({ port: PORT, account: ACCT_B, path: `/${A['b-table']}()` })),
	timed(40, () => req({ port: PORT, account: { name: ACCT_B.name, key: ACCT_A.key }, path: '/Tables' })),
]);
stop = true;
await Promise.all(aClients);

console.log(`# while account A's 16 clients wait on its locked table (${aStarted} requests started, answered ${JSON.stringify(aStatuses)}): ` +
	`account B's reads median ${pct(b.ms, 0.5)} ms p95 ${pct(b.ms, 0.95)} ms; ` +
	`refusals (403) median ${pct(refusals.ms, 0.5)} ms p95 ${pct(refusals.ms, 0.95)} ms`);
ok(b.statuses.every((s) => s === 200), "account B's reads are served", b.statuses.join(','));
ok(pct(b.ms, 0.5) < MAX_MEDIAN, `account B's reads: median under ${MAX_MEDIAN} ms`, `${pct(b.ms, 0.5)} ms`);
ok(refusals.statuses.every((s) => s === 403), 'the refusals are 403', refusals.statuses.join(','));
ok(pct(refusals.ms, 0.5) < MAX_MEDIAN, `requests that need no database: median under ${MAX_MEDIAN} ms`, `${pct(refusals.ms, 0.5)} ms`);
process.exit(summary() ? 0 : 1);
