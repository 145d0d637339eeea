// test/gateway/load_slots.mjs - connections and preflights that need no credential do not lock
// another account out (the gwlimits review, items 5 and 6). Against a gateway with the default
// connection limits (1000 in all, 128 per address) and two accounts A and B:
//   1. 1008 TCP connections that send nothing, 126 from each of 8 loopback addresses
//      (127.0.0.2-9), while B writes 10 entities (from 127.0.0.1): each write is answered while
//      the idle connections are still open (0.4.0 before the fix accepted the first 1000 and let
//      B's connection wait in the listen backlog until one timed out: 20-30 s);
//   2. 300 connections from 3 other addresses pipelining unauthenticated CORS preflights to A
//      for 4 s: none is answered 503 (they no longer wait in A's database queue: answered from
//      the gateway's cache of A's CORS rules), and B's writes meanwhile are all served. A rule
//      set through the gateway applies to the next preflight at once.
// Bounded: 1308 connections, each phase at most 20 s; loopback. Prints what it measured, one check
// per property, and "N passed, N failed".
//   node load_slots.mjs --port N --a NAME:KEY --b NAME:KEY
import crypto from 'node:crypto';
import net from 'node:net';
import { account, args, ok, req, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const ACCT_A = account(A.a);
const ACCT_B = account(A.b);
const TB = 'slotsb' + crypto.randomBytes(3).toString('hex');
const pause = (ms) => new Promise((res) => setTimeout(res, ms));
const tally = (xs) => Object.entries(xs.reduce((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {})).map(([k, v]) => `${k}x${v}`).join(' ');

// a 4 KB write of B, at most 15 s (a write stuck in the listen backlog shows as "stuck")
function writeB(rk) {
	return Promise.race([
		req({ port: PORT, account: ACCT_B, method: 'PUT', path: `/${TB}(PartitionKey='p',RowKey='${rk}')`, body: { PartitionKey: 'p', RowKey: rk, V: 'x'.repeat(4000) } })
			.then((r) => r.status || r.error),
		pause(15000).then(() => 'stuck'),
	]);
}

{
	const c = await req({ port: PORT, account: ACCT_B, method: 'POST', path: '/Tables', body: { TableName: TB } });
	ok(c.status === 201, "B's table is created", `${c.status}`);
}

// ---------------------------------------------------------------- 1. idle connections
{
	const socks = [];
	let closed = 0;
	for (let a = 0; a < 8; a++)
		for (let i = 0; i < 126; i++) {
			const s = net.connect({ port: PORT, host: '127.0.0.1', localAddress: `127.0.0.${a + 2}` });
			s.on('error', () => { });
			s.on('close', () => closed++);
			socks.push(s);
		}
	await pause(1500);
	const before = closed;
	const st = [];
	for (let i = 0; i < 10; i++)
		st.push(await writeB(`idle${i}`));
	const open = socks.length - closed;
	console.log(`# ${socks.length} idle connections from 8 addresses (${before} closed by the gateway at once: the reserve near the limit); ` +
		`B's 4 KB writes ${tally(st)} with ${open} of them still open`);
	ok(st.every((s) => s === 204), "B's writes are all answered while the idle connections hold their slots", tally(st));
	ok(open >= 800, 'the idle connections were still open then (B did not wait for them to time out)', `${open}`);
	socks.forEach((s) => s.destroy());
	await pause(500);
}

// ---------------------------------------------------------------- 2. a flood of preflights
{
	const preflight = `OPTIONS /${ACCT_A.name}/Tables HTTP/1.1\r\nHost: x\r\nOrigin: http://app.example\r\nAccess-Control-Request-Method: PUT\r\n\r\n`;
	const st = {};
	let total = 0;
	const t0 = Date.now();
	const socks = Array.from({ length: 300 }, (_, i) => {
		const s = net.connect({ port: PORT, host: '127.0.0.1', localAddress: `127.0.1.${2 + (i % 3)}` });
		let buf = '';
		s.on('connect', () => { for (let k = 0; k < 4; k++) s.write(preflight); });
		s.on('data', (d) => {
			buf += d.toString('latin1');
			let m;
			while ((m = /^HTTP\/1\.1 (\d+)[^]*?\r\n\r\n/.exec(buf))) {
				const cl = Number(/Content-Length: (\d+)/i.exec(m[0])?.[1] ?? 0);
				if (buf.length < m[0].length + cl) break;
				buf = buf.slice(m[0].length + cl);
				st[m[1]] = (st[m[1]] ?? 0) + 1;
				total++;
				if (Date.now() - t0 < 4000) s.write(preflight);
				else { s.destroy(); break; }
			}
		});
		s.on('error', () => { });
		return s;
	});
	const bSt = [];
	while (Date.now() - t0 < 4000)
		bSt.push(await writeB(`pre${bSt.length}`));
	await pause(1500);
	socks.forEach((s) => s.destroy());
	console.log(`# 300 connections pipelining unauthenticated preflights to ${ACCT_A.name} for 4 s: ${total} answers ${JSON.stringify(st)}; B's 4 KB writes meanwhile ${tally(bSt)}`);
	ok(total > 0 && !st['503'], "no preflight waits on the account's database queue (none answered 503)", JSON.stringify(st));
	ok(bSt.length > 0 && bSt.every((s) => s === 204), "B's writes are all served meanwhile", tally(bSt));
}

// ---------------------------------------------------------------- a rule set through the gateway applies at once
{
	const doc = (rules) => `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors>${rules}</Cors></StorageServiceProperties>`;
	const rule = '<CorsRule><AllowedOrigins>http://app.example</AllowedOrigins><AllowedMethods>PUT</AllowedMethods><AllowedHeaders></AllowedHeaders>' +
		'<ExposedHeaders></ExposedHeaders><MaxAgeInSeconds>60</MaxAgeInSeconds></CorsRule>';
	const set = (rules) => req({ port: PORT, account: ACCT_A, method: 'PUT', path: '/', query: 'restype=service&comp=properties', body: doc(rules), headers: { 'Content-Type': 'application/xml' } });
	const pre = () => req({ port: PORT, account: ACCT_A, method: 'OPTIONS', path: '/Tables', noAuth: true, headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'PUT', 'x-ms-date': null, 'x-ms-version': null } });
	const s1 = await set(rule);
	const p1 = await pre();
	const s2 = await set('');
	const p2 = await pre();
	console.log(`# CORS rule set (${s1.status}): preflight ${p1.status} ${p1.headers['access-control-allow-origin'] ?? ''}; rules removed (${s2.status}): preflight ${p2.status}`);
	ok(s1.status === 202 && p1.status === 200 && p1.headers['access-control-allow-origin'] === 'http://app.example', 'a CORS rule set through the gateway answers the next preflight', `${p1.status}`);
	ok(s2.status === 202 && p2.status === 403, 'and its removal too', `${p2.status}`);
}
await req({ port: PORT, account: ACCT_B, method: 'DELETE', path: `/Tables('${TB}')` });
process.exit(summary() ? 0 : 1);
