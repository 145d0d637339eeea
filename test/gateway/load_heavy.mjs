// test/gateway/load_heavy.mjs - legitimate heavy clients through one key are served (the gwlimits
// review, item 3): with the official SDK (@azure/data-tables, no retries) and one account key,
//   - 16 parallel writers each submitting 2 batches of 100 entities of 38 KB (about 3.9 MB per
//     batch: a bulk copy), and
//   - 16 parallel readers each reading 2 pages of about 17.9 MB (a full page of large entities),
// against a gateway with the default budgets (64 MiB of bodies, 256 MiB of answers, two
// accounts, 4 database connections each). Every batch and every page must succeed: the shares
// of 0.4.0 before the fix refused most of them (16 writers: 21 of 32 batches 503; 16 readers: 25
// of 32 pages), where 0.3.0, with no per-account budget, served them all.
// Bounded: 64 requests, at most 120 s; loopback. Prints what it measured (and the time, not checked).
//   node load_heavy.mjs --port N --a NAME:KEY [--sdk PACKAGE_JSON]
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { account, args, ok, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const ACCT = account(A.a);
const require = createRequire(A.sdk ?? new URL('../sdk/package.json', import.meta.url).pathname);
const { TableClient, TableServiceClient } = require('@azure/data-tables');

const cs = `DefaultEndpointsProtocol=http;AccountName=${ACCT.name};AccountKey=${ACCT.key};TableEndpoint=http://127.0.0.1:${PORT}/${ACCT.name};`;
const opts = { allowInsecureConnection: true, retryOptions: { maxRetries: 0 } };
const tally = (m) => Object.entries(m).map(([k, v]) => `${k}x${v}`).join(' ');
const add = (m, k) => { m[k] = (m[k] ?? 0) + 1; };

// ---------------------------------------------------------------- parallel bulk batches
{
	const table = 'heavyw' + crypto.randomBytes(3).toString('hex');
	await TableServiceClient.fromConnectionString(cs, opts).createTable(table);
	const tc = TableClient.fromConnectionString(cs, table, opts);
	const big = 'x'.repeat(19000);
	const res = {};
	const t0 = Date.now();
	await Promise.all(Array.from({ length: 16 }, async (_, w) => {
		for (let b = 0; b < 2; b++) {
			const pk = `w${w}b${b}`;
			const acts = Array.from({ length: 100 }, (_, i) => ['create', { partitionKey: pk, rowKey: String(i), A: big, B: big }]);
			try { await tc.submitTransaction(acts); add(res, 'ok'); } catch (e) { add(res, `${e.statusCode}:${e.code ?? ''}`); }
		}
	}));
	console.log(`# 16 parallel writers x 2 batches of ~3.9 MB with one key, no retries: ${tally(res)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	ok(res.ok === 32, 'every one of 32 parallel 3.9 MB batches through one key is served', tally(res));
	await TableServiceClient.fromConnectionString(cs, opts).deleteTable(table);
}

// ---------------------------------------------------------------- parallel full-page reads
{
	const table = 'heavyr' + crypto.randomBytes(3).toString('hex');
	await TableServiceClient.fromConnectionString(cs, opts).createTable(table);
	const tc = TableClient.fromConnectionString(cs, table, opts);
	for (let i = 0; i < 16; i++) {
		const e = { partitionKey: 'p', rowKey: `r${String(i).padStart(3, '0')}` };
		for (let k = 0; k < 15; k++) e[`P${k}`] = new Uint8Array(crypto.randomBytes(64000));
		await tc.createEntity(e);
	}
	const res = {};
	const t0 = Date.now();
	await Promise.all(Array.from({ length: 16 }, async () => {
		for (let r = 0; r < 2; r++) {
			try {
				for await (const page of tc.listEntities().byPage({ maxPageSize: 1000 })) { if (page.length < 12) throw Object.assign(new Error('short'), { statusCode: `short${page.length}` }); break; }
				add(res, 'ok');
			} catch (e) { add(res, `${e.statusCode}:${e.code ?? ''}`); }
		}
	}));
	console.log(`# 16 parallel readers x 2 pages of ~17.9 MB with one key, no retries: ${tally(res)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	ok(res.ok === 32, 'every one of 32 parallel 17.9 MB page reads through one key is served', tally(res));
	await TableServiceClient.fromConnectionString(cs, opts).deleteTable(table);
}
process.exit(summary() ? 0 : 1);
