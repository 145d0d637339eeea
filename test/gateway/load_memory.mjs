// test/gateway/load_memory.mjs - memory under hostile uploads (issue 23): 200 connections each
// announcing and sending a 4 MiB body, first unauthenticated, then signed; the gateway's resident
// memory is sampled from /proc meanwhile and a signed client keeps reading through one kept
// connection. Bounded: 200 connections, 4 MiB each, 20 s per phase. Loopback only.
//   node load_memory.mjs --port N --pid GATEWAY_PID --account NAME:KEY [--limit-mb 256]
// Prints what it measured, one check per property, and "N passed, N failed".
import http from 'node:http';
import net from 'node:net';
import { account, args, ok, req, rssKb, signedHead, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const PID = Number(A.pid);
const ACCT = account(A.account);
const LIMIT_MB = Number(A['limit-mb'] ?? 256);
const CONNECTIONS = 200;
const BODY = 4 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

// One uploader: headers, then the body as fast as the socket takes it, until the server answers
// or closes; resolves with the status seen (0: none).
function upload(head, deadline) {
	return new Promise((resolve) => {
		const s = net.connect(PORT, '127.0.0.1');
		let sent = 0, status = 0, done = false;
		const finish = () => { if (!done) { done = true; s.destroy(); resolve(status); } };
		s.on('connect', () => {
			s.write(head);
			const pump = () => {
				while (sent < BODY && Date.now() < deadline && !done) {
					sent += CHUNK.length;
					if (!s.write(CHUNK)) { s.once('drain', pump); return; }
				}
			};
			pump();
		});
		s.on('data', (d) => { const m = /^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1')); if (m) status = Number(m[1]); });
		s.on('error', finish);
		s.on('close', finish);
		setTimeout(finish, Math.max(0, deadline - Date.now()));
	});
}

async function phase(name, headOf) {
	const deadline = Date.now() + 20000;
	const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
	await req({ port: PORT, account: ACCT, path: '/Tables', agent });	/* the reader's connection, opened first */
	let maxKb = rssKb(PID), reads = 0, served = 0, stop = false;
	const sampler = setInterval(() => { maxKb = Math.max(maxKb, rssKb(PID)); }, 50);
	const reader = (async () => {
		while (!stop) {
			const r = await req({ port: PORT, account: ACCT, path: '/Tables', agent });
			reads++;
			if (r.status === 200) served++;
			await new Promise((res) => setTimeout(res, 50));
		}
	})();
	const t0 = Date.now();
	const statuses = await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => upload(headOf(i), deadline)));
	const ms = Date.now() - t0;
	stop = true;
	await reader;
	clearInterval(sampler);
	maxKb = Math.max(maxKb, rssKb(PID));
	agent.destroy();
	const count = (s) => statuses.filter((x) => x === s).length;
	console.log(`# ${name}: ${CONNECTIONS} connections x 4 MiB in ${ms} ms; answers 403=${count(403)} 413=${count(413)} 503=${count(503)} ` +
		`none=${count(0)} other=${CONNECTIONS - count(403) - count(413) - count(503) - count(0)}; gateway RSS max ${(maxKb / 1024).toFixed(1)} MiB; ` +
		`signed reads meanwhile ${served}/${reads} served`);
	ok(maxKb < LIMIT_MB * 1024, `${name}: the gateway's RSS stays under ${LIMIT_MB} MiB`, `${(maxKb / 1024).toFixed(1)} MiB`);
	ok(reads > 0 && served === reads, `${name}: signed requests keep being served`, `${served}/${reads}`);
	ok(count(500) === 0, `${name}: no 500`, '');
}

console.log(`# gateway RSS at the start ${(rssKb(PID) / 1024).toFixed(1)} MiB`);
await phase('unauthenticated uploads', () => `PUT /${ACCT.name}/t(PartitionKey='p',RowKey='r') HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY}\r\n\r\n`);
await phase('signed uploads', (i) => signedHead(PORT, ACCT, 'PUT', `/${ACCT.name}/t(PartitionKey='p',RowKey='r${i}')`,
	{ 'Content-Type': 'application/json', 'Content-Length': String(BODY) }));
console.log(`# gateway RSS at the end ${(rssKb(PID) / 1024).toFixed(1)} MiB`);
process.exit(summary() ? 0 : 1);
