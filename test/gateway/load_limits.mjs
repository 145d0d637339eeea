// test/gateway/load_limits.mjs - the answer budget taken at admission, and what still applies to a
// refused body (the gwlimits review, items 2, 7 and 9). Run against a gateway started with
// --body-memory 16 --response-memory 64 --pool 16 --request-timeout 2 and two accounts A and B:
//   1. one read-only table SAS of A asks, on 24 connections that never read, for a page of about
//      17.9 MB: with 16 database workers all admitting at once, the answers it holds must stay
//      within the gateway's 64 MiB (0.4.0 before the fix admitted one per worker: 16 pages, 286
//      MB); meanwhile B's writes and reads and A's small queries with its key are all served;
//   2. a SAS of A holds all the body memory it may (stalled 1 MiB bodies): its request sent with
//      Expect: 100-continue is refused (503) before the body, not invited with 100 Continue;
//   3. a body of that SAS refused on the way (its 503 waits for the rest) and then trickled: the
//      request timeout (2 s) still applies: its 503 is sent and the connection closed.
// Bounded: 24 + 6 connections, each phase at most 20 s; loopback. Prints what it measured, one
// check per property, and "N passed, N failed".
//   node load_limits.mjs --port N --a NAME:KEY --b NAME:KEY [--response-mb 64]
import crypto from 'node:crypto';
import net from 'node:net';
import { account, args, ok, raw, req, signedHead, summary, tableSas } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const ACCT_A = account(A.a);
const ACCT_B = account(A.b);
const RESPONSE_MB = Number(A['response-mb'] ?? 64);
const T = 'limits' + crypto.randomBytes(3).toString('hex');
const TB = 'limitsb' + crypto.randomBytes(3).toString('hex');
const pause = (ms) => new Promise((res) => setTimeout(res, ms));
const tally = (xs) => Object.entries(xs.reduce((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {})).map(([k, v]) => `${k}x${v}`).join(' ');
const MiB = 1024 * 1024;

// a connection that sends head (and send bytes of body) and keeps what it is answered
function hold(head, send = 0) {
	const s = net.connect(PORT, '127.0.0.1');
	const h = { status: 0, closed: false, socket: s, data: '' };
	s.on('connect', () => { s.write(head); if (send > 0) s.write(Buffer.alloc(send, 0x61)); });
	s.on('data', (d) => { h.data += d.subarray(0, 4096).toString('latin1'); const m = /^HTTP\/1\.1 (\d+)/.exec(h.data); if (m && !h.status) h.status = Number(m[1]); });
	s.on('error', () => { });
	s.on('close', () => { h.closed = true; });
	return h;
}

{
	const c = await req({ port: PORT, account: ACCT_A, method: 'POST', path: '/Tables', body: { TableName: T } });
	const cb = await req({ port: PORT, account: ACCT_B, method: 'POST', path: '/Tables', body: { TableName: TB } });
	ok(c.status === 201 && cb.status === 201, 'the tables are created', `${c.status} ${cb.status}`);
	const st = [];
	for (let i = 0; i < 16; i++) {
		const e = { PartitionKey: 'p', RowKey: `r${String(i).padStart(3, '0')}` };
		for (let k = 0; k < 15; k++) {
			e[`P${k}@odata.type`] = 'Edm.Binary';
			e[`P${k}`] = crypto.randomBytes(64000).toString('base64');
		}
		st.push((await req({ port: PORT, account: ACCT_A, method: 'POST', path: `/${T}`, body: e, headers: { Prefer: 'return-no-content' } })).status);
	}
	await req({ port: PORT, account: ACCT_B, method: 'PUT', path: `/${TB}(PartitionKey='p',RowKey='r')`, body: { PartitionKey: 'p', RowKey: 'r', V: 'x' } });
	ok(st.every((s) => s === 204), '16 entities of 1.28 MB are inserted', tally(st));
}
const page = await req({ port: PORT, account: ACCT_A, path: `/${T}()` });
const pageBytes = page.text.length;
console.log(`# one page: ${pageBytes} bytes (${(pageBytes / MiB).toFixed(1)} MiB)`);

// ---------------------------------------------------------------- 1. answers admitted at once
{
	const sas = tableSas(ACCT_A, T, { sp: 'r' });
	const head = `GET /${ACCT_A.name}/${T}()?${sas} HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nAccept: application/json;odata=nometadata\r\n` +
		`x-ms-version: 2019-02-02\r\n\r\n`;
	const readers = Array.from({ length: 24 }, () => {
		const h = hold(head);
		h.socket.once('data', () => h.socket.pause());	/* reads the status line, then nothing */
		return h;
	});
	const bSt = [], aSt = [];
	const t0 = Date.now();
	while (Date.now() - t0 < 8000 && readers.some((h) => !h.status && !h.closed)) {
		bSt.push((await req({ port: PORT, account: ACCT_B, method: 'PUT', path: `/${TB}(PartitionKey='p',RowKey='w')`, body: { PartitionKey: 'p', RowKey: 'w', V: 'x'.repeat(4000) } })).status);
		bSt.push((await req({ port: PORT, account: ACCT_B, path: `/${TB}(PartitionKey='p',RowKey='r')` })).status);
		aSt.push((await req({ port: PORT, account: ACCT_A, path: `/${T}()`, query: '$top=1&$select=RowKey' })).status);
		await pause(200);
	}
	const st = readers.map((h) => h.status || (h.closed ? 'closed' : 'none'));
	const admitted = st.filter((s) => s === 200).length;
	const heldMiB = admitted * pageBytes / MiB;
	console.log(`# 24 non-reading requests of one read-only SAS for the ${(pageBytes / MiB).toFixed(1)} MiB page, 16 database workers: ${tally(st)}; ` +
		`held ${heldMiB.toFixed(1)} MiB of the gateway's ${RESPONSE_MB} MiB; B's writes and reads meanwhile ${tally(bSt)}; A's small queries with its key ${tally(aSt)}`);
	ok(admitted >= 1, 'the SAS is served (at least one page)', tally(st));
	ok(heldMiB <= RESPONSE_MB, `the answers one SAS holds stay within the answer budget whatever pool_size is (${heldMiB.toFixed(1)} MiB <= ${RESPONSE_MB} MiB)`, tally(st));
	ok(st.every((s) => s === 200 || s === 503), 'every request beyond is answered 503 ServerBusy', tally(st));
	ok(bSt.length > 0 && bSt.every((s) => s === 204 || s === 200), "B's writes and reads are all served meanwhile", tally(bSt));
	ok(aSt.length > 0 && aSt.every((s) => s === 200), "A's small queries with its key are all served meanwhile (the room kept for the key)", tally(aSt));
	readers.forEach((h) => h.socket.destroy());
	await pause(500);
}

// ---------------------------------------------------------------- 2. Expect: 100-continue
const insertPath = `/${ACCT_A.name}/${T}`;
const sasA = tableSas(ACCT_A, T, { sp: 'a' });
const sasHead = (extra) => `POST ${insertPath}?${sasA} HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nContent-Type: application/json\r\n` +
	Object.entries(extra).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
const holders = Array.from({ length: 6 }, () => hold(sasHead({ 'Content-Length': '4194204' }), MiB));
await pause(1500);
{
	const x = await raw(PORT, [sasHead({ 'Content-Length': String(3 * MiB), Expect: '100-continue' })], { timeoutMs: 5000 });
	const answers = x.text.match(/HTTP\/1\.1 \d+/g) ?? [];
	console.log(`# a SAS holding all the body memory it may (6 stalled 1 MiB bodies): its 3 MiB request with Expect: 100-continue is answered ${JSON.stringify(answers)}`);
	ok(answers.length === 1 && answers[0] === 'HTTP/1.1 503' && /ServerBusy/.test(x.text),
		'Expect: 100-continue with no room for the body: 503 ServerBusy, no 100 Continue', JSON.stringify(answers));
	const k = await raw(PORT, [signedHead(PORT, ACCT_A, 'POST', insertPath, { 'Content-Type': 'application/json', 'Content-Length': '2', Expect: '100-continue' }), 300, '{}'], { timeoutMs: 5000 });
	ok(/^HTTP\/1\.1 100/.test(k.text), "with room (A's key), the same request is invited with 100 Continue", k.text.slice(0, 60));
}

// ---------------------------------------------------------------- 3. a refused body still times out
{
	const d = hold(sasHead({ 'Transfer-Encoding': 'chunked' }), 0);
	d.socket.on('connect', () => d.socket.write('100000\r\n' + 'a'.repeat(600000)));
	let sent = 0;
	const t0 = Date.now();
	while (Date.now() - t0 < 12000 && !d.closed) {
		await pause(500);
		if (!d.closed) { d.socket.write('a'.repeat(10)); sent++; }
	}
	console.log(`# a body of that SAS refused on the way, then trickled (10 bytes per 500 ms): ${d.closed ? `closed after ${sent} pieces` : 'still open'}, answered ${d.status || 'nothing'}`);
	// (its 503 is sent and the connection closed; a client still sending may get a reset before it reads the 503)
	ok(d.closed && (d.status === 503 || d.status === 0), 'a refused body trickled after its refusal is still closed by the request timeout', `${d.closed} ${d.status}`);
	d.socket.destroy();
}
holders.forEach((h) => h.socket.destroy());
await pause(300);
{
	const w = await req({ port: PORT, account: ACCT_A, method: 'PUT', path: `/${T}(PartitionKey='p',RowKey='after')`, body: { PartitionKey: 'p', RowKey: 'after' } });
	ok(w.status === 204, 'after the holders left, A writes again', `${w.status}`);
}
await req({ port: PORT, account: ACCT_A, method: 'DELETE', path: `/Tables('${T}')` });
process.exit(summary() ? 0 : 1);
