// test/gateway/http_lib.mjs - what the gateway's HTTP tests share: a Shared Key signer and an
// account SAS maker written from the service's documentation, a signed request, a raw exchange on
// a socket, and the check counter (one line per check, "N passed, N failed" at the end).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

export const DEV = { name: 'devstoreaccount1', key: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==' };

// "name:key1[:key2]" as the scripts pass accounts
export function account(spec) {
	const [name, key, key2] = spec.split(':');
	return { name, key, key2 };
}

export function args() {
	return Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? a.concat([[v.slice(2), all[i + 1]]]) : a), []));
}

let passed = 0, failed = 0;
export function ok(cond, name, detail = '') {
	if (cond) { passed++; console.log(`ok   ${name}`); }
	else { failed++; console.log(`FAIL ${name} ${detail}`); }
}
export function summary() {
	console.log(`${passed} passed, ${failed} failed`);
	return failed === 0;
}

// Shared Key: VERB\nContent-MD5\nContent-Type\nDate\n/<account><raw path>[?comp=...];
// Shared Key Lite (lite): Date\n/<account><raw path>[?comp=...]
export function sign({ method, path, query = '', headers, account: acct = DEV, key, lite = false }) {
	const date = headers['x-ms-date'] ?? headers['Date'] ?? '';
	const comp = new URLSearchParams(query).get('comp');
	const canon = `/${acct.name}${path}` + (comp != null ? `?comp=${comp}` : '');
	const sts = lite ? `${date}\n${canon}` : `${method}\n${headers['Content-MD5'] ?? ''}\n${headers['Content-Type'] ?? ''}\n${date}\n${canon}`;
	const mac = crypto.createHmac('sha256', Buffer.from(key ?? acct.key, 'base64')).update(sts, 'utf8').digest('base64');
	return `${lite ? 'SharedKeyLite' : 'SharedKey'} ${acct.name}:${mac}`;
}

// An account SAS (sv 2019-02-02): account\nsp\nss\nsrt\nst\nse\nsip\nspr\nsv\n
export function accountSas(acct, { sp, srt, ss = 't', se = '2099-01-01T00:00:00Z' }) {
	const sv = '2019-02-02';
	const sts = `${acct.name}\n${sp}\n${ss}\n${srt}\n\n${se}\n\n\n${sv}\n`;
	const sig = crypto.createHmac('sha256', Buffer.from(acct.key, 'base64')).update(sts, 'utf8').digest('base64');
	return new URLSearchParams({ sv, ss, srt, sp, se, sig }).toString();
}

// A table's service SAS (sv 2019-02-02), as the service's "Create a service SAS" page defines it:
// sp\nst\nse\n/table/<account>/<table>\nsi\nsip\nspr\nsv\nspk\nsrk\nepk\nerk. With si (a stored
// access policy), sp and se may be left to the policy (pass sp: '' and se: '').
export function tableSas(acct, table, { sp, si = '', se = '2099-01-01T00:00:00Z' }) {
	const sv = '2019-02-02';
	const sts = `${sp}\n\n${se}\n/table/${acct.name}/${table.toLowerCase()}\n${si}\n\n\n${sv}\n\n\n\n`;
	const sig = crypto.createHmac('sha256', Buffer.from(acct.key, 'base64')).update(sts, 'utf8').digest('base64');
	const q = { sv, tn: table };
	if (sp) q.sp = sp;
	if (se) q.se = se;
	if (si) q.si = si;
	q.sig = sig;
	return new URLSearchParams(q).toString();
}

// req({port, method, path (after the account), query, body, headers, noAuth, authorization, lite,
//      account, key, pathAccount, agent}) resolves {status, headers, text, json, ms, socket (reused)}
export function req(o) {
	const acct = o.account ?? DEV;
	const method = o.method ?? 'GET';
	const path = `/${o.pathAccount ?? acct.name}${o.path}`;
	const headers = { 'x-ms-date': new Date().toUTCString(), 'x-ms-version': '2019-02-02', Accept: 'application/json;odata=minimalmetadata', ...(o.headers || {}) };
	let body = o.body;
	if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) body = JSON.stringify(body);
	if (body !== undefined && headers['Content-Type'] === undefined) headers['Content-Type'] = 'application/json';
	for (const k of Object.keys(headers)) if (headers[k] === null) delete headers[k];
	if (!o.noAuth) headers.Authorization = o.authorization ?? sign({ method, path, query: o.query ?? '', headers, account: acct, key: o.key, lite: o.lite });
	return new Promise((resolve) => {
		const t0 = Date.now();
		const r = http.request({ host: '127.0.0.1', port: o.port, method, path: path + (o.query ? '?' + o.query : ''), headers, agent: o.agent ?? false }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let json = null;
				try { json = JSON.parse(text); } catch { /* not JSON */ }
				resolve({ status: res.statusCode, headers: res.headers, text, json, ms: Date.now() - t0, socket: r.reusedSocket });
			});
		});
		r.on('error', (e) => resolve({ status: 0, error: e.code, text: '', headers: {}, ms: Date.now() - t0 }));
		r.setTimeout(30000, () => r.destroy(new Error('timeout')));
		if (body !== undefined) r.write(body);
		r.end();
	});
}

export const errCode = (r) => r.json?.['odata.error']?.code ?? r.headers['x-ms-error-code'];

// A raw exchange on a fresh socket: write chunks (strings/buffers; numbers are pauses in ms),
// then half-close when asked; collect until the server closes or timeoutMs; resolves
// {status, text, closed, error, ms}.
export function raw(port, chunks, { timeoutMs = 8000, halfClose = false } = {}) {
	return new Promise((resolve) => {
		const s = net.connect(port, '127.0.0.1');
		const got = [];
		let closed = false, done = false, error = null;
		const t0 = Date.now();
		s.on('connect', async () => {
			for (const c of chunks) {
				if (typeof c === 'number') { await new Promise((r) => setTimeout(r, c)); continue; }
				if (!s.destroyed) s.write(c);
			}
			if (halfClose) s.end();
		});
		s.on('data', (d) => got.push(d));
		s.on('error', (e) => { error = e.code; });
		s.on('close', () => { closed = true; finish(); });
		const timer = setTimeout(finish, timeoutMs);
		function finish() {
			if (done) return;
			done = true;
			clearTimeout(timer);
			s.destroy();
			const text = Buffer.concat(got).toString('latin1');
			const m = /^HTTP\/1\.1 (\d+)/.exec(text);
			resolve({ status: m ? Number(m[1]) : 0, text, closed, error, ms: Date.now() - t0 });
		}
	});
}

// The request line and headers of a signed request (for raw exchanges).
export function signedHead(port, acct, method, path, extra = {}, query = '') {
	const headers = { 'x-ms-date': new Date().toUTCString(), 'x-ms-version': '2019-02-02', ...extra };
	headers.Authorization = sign({ method, path, headers, query, account: acct });
	return `${method} ${path}${query ? '?' + query : ''} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
		Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
}

// The gateway's resident memory (kB) from /proc.
export function rssKb(pid) {
	try {
		const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0);
	} catch { return 0; }
}
