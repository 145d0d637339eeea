// test/gateway/load_bearer.mjs - one bearer token spelled many ways is one credential, and
// delegated credentials never take the room kept for the account's key (the gwlimits review,
// item 4). Against an HTTPS gateway with --oauth-keys (the development account alone, 64 MiB of
// bodies): one RS256 token, its scheme written "Bearer"/"bearer" and followed by 1 to 17 spaces,
// sends 34 bodies of 1 MiB (2 MiB buffers each: 68 MiB, more than the budget), then 140 of 15 KB and
// 10 of 2 KB (to fill what is left to a few KB) and stalls; the account's key then writes 5
// entities of 4 KB: all must succeed. (0.4.0 before the fix hashed the
// whole header: each spelling was a credential of its own with a share of its own, and together
// they held 16 774 656 of the account's 16 777 216 bytes; the key's writes were refused.)
// Bounded: 184 connections (from 127.0.0.2-3), at most 60 s; loopback. Prints what it measured, one check per property.
//   node load_bearer.mjs --port N --jwt-key PRIVATE_KEY_PEM
import { createPrivateKey, randomUUID, sign as rsaSign } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { DEV, args, ok, sign, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const key = createPrivateKey(fs.readFileSync(A['jwt-key']));
const b64url = (b) => Buffer.from(b).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
const now = Math.floor(Date.now() / 1000);
const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
const body = b64url(JSON.stringify({ aud: 'https://storage.azure.com', iss: 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/',
	iat: now - 60, nbf: now - 60, exp: now + 3600, oid: randomUUID() }));
const token = `${head}.${body}.${b64url(rsaSign('sha256', Buffer.from(`${head}.${body}`), key))}`;
const pause = (ms) => new Promise((res) => setTimeout(res, ms));
const tally = (xs) => Object.entries(xs.reduce((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {})).map(([k, v]) => `${k}x${v}`).join(' ');
const table = 'bearer' + Date.now().toString(36);

// a request with the account's key over HTTPS; its status
function keyed(method, path, json) {
	const p = `/${DEV.name}${path}`;
	const headers = { 'x-ms-date': new Date().toUTCString(), 'x-ms-version': '2019-02-02', Accept: 'application/json;odata=nometadata', 'Content-Type': 'application/json' };
	headers.Authorization = sign({ method, path: p, headers, account: DEV });
	return new Promise((resolve) => {
		const r = https.request({ host: '127.0.0.1', port: PORT, method, path: p, headers, agent: false, rejectUnauthorized: false }, (res) => {
			res.resume();
			res.on('end', () => resolve(res.statusCode));
		});
		r.on('error', (e) => resolve(e.code));
		r.setTimeout(20000, () => r.destroy(Object.assign(new Error('t'), { code: 'TIMEOUT' })));
		r.end(JSON.stringify(json));
	});
}

ok(await keyed('POST', '/Tables', { TableName: table }) === 201, 'the key creates a table');
const spelled = (i) => `${i % 2 ? 'bearer' : 'Bearer'}${' '.repeat(1 + (i >> 1))}${token}${' '.repeat(i % 3)}`;
const sizes = [...Array(34).fill(1024 * 1024), ...Array(140).fill(15000), ...Array(10).fill(2000)];
const holders = sizes.map((size, i) => {
	const s = tls.connect({ port: PORT, host: '127.0.0.1', rejectUnauthorized: false, localAddress: `127.0.0.${2 + (i % 2)}` });
	const h = { socket: s, status: 0 };
	s.on('secureConnect', () => {
		s.write(`POST /${DEV.name}/${table} HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nx-ms-date: ${new Date().toUTCString()}\r\nx-ms-version: 2019-02-02\r\n` +
			`Authorization: ${spelled(i)}\r\nContent-Type: application/json\r\nContent-Length: 4194204\r\n\r\n`);
		setTimeout(() => s.write(Buffer.alloc(size, 0x61)), size < 1024 * 1024 ? 1500 : 0);
	});
	s.on('data', (d) => { const m = /^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1')); if (m && !h.status) h.status = Number(m[1]); });
	s.on('error', () => { });
	return h;
});
await pause(4000);
const st = [];
for (let i = 0; i < 5; i++)
	st.push(await keyed('PUT', `/${table}(PartitionKey='p',RowKey='k${i}')`, { PartitionKey: 'p', RowKey: `k${i}`, V: 'x'.repeat(4000) }));
console.log(`# one bearer token in 184 spellings, stalling 34 x 1 MiB, 140 x 15 KB and 10 x 2 KB of bodies: answered early ${tally(holders.map((h) => h.status))}; the key's 4 KB writes ${tally(st)}`);
ok(st.every((s) => s === 204), "the account key's writes all succeed (one token holds at most the budget less the key's kept room)", tally(st));
holders.forEach((h) => h.socket.destroy());
await pause(300);
await keyed('DELETE', `/Tables('${table}')`, {});
process.exit(summary() ? 0 : 1);
