// test/gateway/load_budget.mjs - one account cannot take every account's share of the request
// body budget (issue 31, item 3). Account A opens connections that announce a body of 4 194 204
// bytes and send none of it (or part of it, then stall), signed with each credential the issue
// names: the account key, a table SAS with only `a`, and a SAS naming a stored access policy that
// does not exist (a revoked one: its signature passes before the body, its policy is read after).
// Meanwhile account B writes 4 KB entities, each on a connection of its own: every one must
// succeed. A further phase has each credential of A stall 30 partial bodies of 1 MiB (60 MiB of
// buffers, more than the 64 MiB budget leaves one credential once B's guaranteed room is kept):
// that credential holds at most what it may (its next body is refused), B still writes, and
// while a SAS holds, A's key still writes (the room kept for it). Last, unauthenticated CORS
// preflights (OPTIONS) announcing 4 MiB bodies to both accounts (gwlimits review, item 1):
// each is refused at once (400, connection closed), before its body is read, so they hold nothing.
// Bounded: at most 30 connections per phase, 20 writes of B per phase, each phase at most 30 s. Loopback.
//   node load_budget.mjs --port N --a NAME:KEY --b NAME:KEY [--pid GATEWAY_PID]
// Prints what it measured, one check per property, and "N passed, N failed".
import crypto from 'node:crypto';
import net from 'node:net';
import { account, args, ok, raw, req, rssKb, signedHead, summary, tableSas } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const PID = A.pid ? Number(A.pid) : 0;
const ACCT_A = account(A.a);
const ACCT_B = account(A.b);
const TA = 'budgeta' + crypto.randomBytes(3).toString('hex');
const TB = 'budgetb' + crypto.randomBytes(3).toString('hex');
const ANNOUNCED = 4194204;
const CONNECTIONS = 20;
const PARTIAL = 30;			/* connections stalling 1 MiB each (a 2 MiB buffer each) */

// An attacker's connection: the head, then `send` bytes of the body, then nothing; it records the
// status of an answer, if one comes, and whether the server closed it.
function hold(head, send) {
	const s = net.connect(PORT, '127.0.0.1');
	const h = { status: 0, closed: false, socket: s };
	s.on('connect', () => {
		s.write(head);
		if (send > 0) s.write(Buffer.alloc(send, 0x61));
	});
	s.on('data', (d) => { const m = /^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1')); if (m && !h.status) h.status = Number(m[1]); });
	s.on('error', () => { });
	s.on('close', () => { h.closed = true; });
	return h;
}

const pause = (ms) => new Promise((res) => setTimeout(res, ms));
const body4k = (rk) => ({ PartitionKey: 'p', RowKey: rk, V: 'x'.repeat(4000) });

// n writes of 4 KB by acct to table t, one after the other, each on a connection of its own;
// the status of each (or the socket's error: a refusal before the body resets the connection)
async function writes(acct, t, n, tag) {
	const st = [];
	for (let i = 0; i < n; i++) {
		const r = await req({ port: PORT, account: acct, method: 'PUT', path: `/${t}(PartitionKey='p',RowKey='${tag}${i}')`, body: body4k(`${tag}${i}`) });
		st.push(r.status || r.error);
		if (r.status >= 400 && r.status !== 503 && !writes.shown) { writes.shown = true; console.log(`# ${acct.name}: ${r.status} ${r.text.slice(0, 300)}`); }
	}
	return st;
}

const count = (xs, s) => xs.filter((x) => x === s).length;
const tally = (xs) => Object.entries(xs.reduce((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {})).map(([k, v]) => `${k}x${v}`).join(' ');

{
	const ca = await req({ port: PORT, account: ACCT_A, method: 'POST', path: '/Tables', body: { TableName: TA } });
	const cb = await req({ port: PORT, account: ACCT_B, method: 'POST', path: '/Tables', body: { TableName: TB } });
	ok(ca.status === 201 && cb.status === 201, 'the two accounts create their tables', `${ca.status} ${cb.status}`);
}

const insertPath = `/${ACCT_A.name}/${TA}`;
const heads = {
	'the account key': () => signedHead(PORT, ACCT_A, 'POST', insertPath, { 'Content-Type': 'application/json', 'Content-Length': String(ANNOUNCED) }),
	'a table SAS with only a': () => `POST ${insertPath}?${tableSas(ACCT_A, TA, { sp: 'a' })} HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\n` +
		`Content-Type: application/json\r\nContent-Length: ${ANNOUNCED}\r\n\r\n`,
	'a revoked stored-policy SAS': () => `POST ${insertPath}?${tableSas(ACCT_A, TA, { sp: '', se: '', si: 'revoked' })} HTTP/1.1\r\n` +
		`Host: 127.0.0.1:${PORT}\r\nContent-Type: application/json\r\nContent-Length: ${ANNOUNCED}\r\n\r\n`,
};

let maxKb = PID ? rssKb(PID) : 0;
const sampler = setInterval(() => { if (PID) maxKb = Math.max(maxKb, rssKb(PID)); }, 100);

// headers only: nothing of the body is sent, so nothing should be held
for (const [kind, head] of Object.entries(heads)) {
	const held = Array.from({ length: CONNECTIONS }, () => hold(head(), 0));
	await pause(700);	/* every head is in and routed */
	const b = await writes(ACCT_B, TB, 20, 'h');
	const early = held.map((h) => h.status);
	held.forEach((h) => h.socket.destroy());
	console.log(`# ${CONNECTIONS} header-only connections of A with ${kind} (Content-Length ${ANNOUNCED}): A answered ${tally(early)}; ` +
		`B's 4 KB writes ${tally(b)}`);
	ok(count(b, 204) === b.length, `header-only bodies of A with ${kind}: every 4 KB write of B succeeds`, tally(b));
	await pause(200);
}

// partial bodies: each connection sends 1 MiB and stalls; one credential of A holds at most what
// it may (the budget less B's guaranteed room, less for a SAS the room kept for A's key), and B
// and A's key keep writing. A body past that is refused as it arrives (its answer, 503, waits
// for the rest of the body, which these never send): the credential's own next large body shows
// it, answered 503 ServerBusy once sent.
for (const [kind, head] of Object.entries(heads)) {
	const held = Array.from({ length: PARTIAL }, () => hold(head(), 1024 * 1024));
	await pause(1500);
	const b = await writes(ACCT_B, TB, 20, 'p');
	const aOther = kind === 'the account key' ? null : await writes(ACCT_A, TA, 3, 'k');
	// the same credential, a whole body of 1 MiB (not JSON: it is refused before it is parsed, or 400)
	const mine = await raw(PORT, [head().replace(`Content-Length: ${ANNOUNCED}`, `Content-Length: ${1024 * 1024}`), Buffer.alloc(1024 * 1024, 0x61)], { timeoutMs: 10000 });
	const early = held.map((h) => h.status || (h.closed ? 'closed' : 'held'));
	held.forEach((h) => h.socket.destroy());
	console.log(`# ${PARTIAL} connections of A with ${kind} each sending 1 MiB then stalling: ${tally(early)}; ` +
		`B's 4 KB writes ${tally(b)}${aOther ? `; A's writes with its key meanwhile ${tally(aOther)}` : ''}; ` +
		`a further 1 MiB body with the same credential: ${mine.status} ${/"code":"(\w+)"/.exec(mine.text)?.[1] ?? ''}`);
	ok(count(b, 204) === b.length, `stalled 1 MiB bodies of A with ${kind}: every 4 KB write of B succeeds`, tally(b));
	ok(mine.status === 503 && /ServerBusy/.test(mine.text) && /Retry-After: 1/i.test(mine.text),
		`stalled 1 MiB bodies of A with ${kind}: the credential holds all it may (its next 1 MiB body: 503 ServerBusy, Retry-After)`, `${mine.status} ${mine.text.slice(-300)}`);
	if (aOther)
		ok(count(aOther, 204) === aOther.length, `stalled bodies of A with ${kind}: A's writes with its key succeed (the room kept for the key)`, tally(aOther));
	await pause(300);
}

// unauthenticated CORS preflights with bodies, to both accounts: refused before their bodies
{
	const pre = (acct) => `OPTIONS /${acct.name}/Tables HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nOrigin: http://evil.example\r\n` +
		`Access-Control-Request-Method: PUT\r\nContent-Length: ${ANNOUNCED}\r\n\r\n`;
	const held = Array.from({ length: PARTIAL }, (_, i) => hold(pre(i % 2 ? ACCT_A : ACCT_B), 1024 * 1024));
	await pause(1500);
	const b = await writes(ACCT_B, TB, 20, 'o');
	const early = held.map((h) => h.status || (h.closed ? 'closed' : 'held'));
	held.forEach((h) => h.socket.destroy());
	console.log(`# ${PARTIAL} unauthenticated preflights announcing ${ANNOUNCED} bytes and sending 1 MiB: answered ${tally(early)}; B's 4 KB writes ${tally(b)}`);
	// refused on its head: 400 and closed (the client, still sending its body, may get a reset before it reads the 400)
	ok(held.every((h) => h.status === 400 || (h.closed && h.status === 0)), 'a CORS preflight with a body is refused (400, closed) before its body is read, not held', tally(early));
	ok(count(b, 204) === b.length, 'preflight bodies: every 4 KB write of B succeeds', tally(b));
}

clearInterval(sampler);
if (PID)
	console.log(`# gateway RSS max ${(maxKb / 1024).toFixed(1)} MiB`);
{
	// after the attackers left, A writes again, and a 1 MiB body with the SAS is read (and refused as not JSON)
	const a = await writes(ACCT_A, TA, 3, 'after');
	ok(count(a, 204) === a.length, 'after the attack A writes again', tally(a));
	const head = heads['a table SAS with only a']().replace(`Content-Length: ${ANNOUNCED}`, `Content-Length: ${1024 * 1024}`);
	const mine = await raw(PORT, [head, Buffer.alloc(1024 * 1024, 0x61)], { timeoutMs: 10000 });
	ok(mine.status === 400, 'after the attack a 1 MiB body with the SAS is read again (400: not JSON)', `${mine.status} ${mine.text.slice(-200)}`);
}
process.exit(summary() ? 0 : 1);
