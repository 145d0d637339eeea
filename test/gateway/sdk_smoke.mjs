// test/gateway/sdk_smoke.mjs - a quick check with the official @azure/data-tables client:
// create table, insert, get, upsert/update/merge, query with byPage, a batch, delete.
//   node test/gateway/sdk_smoke.mjs PORT [NODE_MODULES_PACKAGE_JSON]
// The client is loaded from an existing npm install (default: test/sdk, the project's one Node
// package); nothing is installed by this script.
import { createRequire } from 'node:module';

const port = process.argv[2];
const pkg = process.argv[3] || new URL('../sdk/package.json', import.meta.url).pathname;
const require = createRequire(pkg);
const { TableClient, TableServiceClient, odata } = require('@azure/data-tables');

const key = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
const opts = { allowInsecureConnection: true, retryOptions: { maxRetries: 0 } };
let passed = 0, failed = 0;
async function check(name, fn) {
	try { await fn(); passed++; console.log(`ok   ${name}`); }
	catch (e) { failed++; console.log(`FAIL ${name}: ${e.statusCode || ''} ${e.code || ''} ${e.message.split('\n')[0]}`); }
}
function eq(a, b, what) { if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`); }

const table = 'sdk' + Date.now().toString(36);
const svc = TableServiceClient.fromConnectionString(cs, opts);
const tc = TableClient.fromConnectionString(cs, table, opts);

await check('createTable', () => svc.createTable(table));
await check('listTables finds it', async () => {
	let found = false;
	for await (const t of svc.listTables({ queryOptions: { filter: odata`TableName eq ${table}` } })) if (t.name === table) found = true;
	if (!found) throw new Error('not listed');
});
await check('createEntity', () => tc.createEntity({ partitionKey: 'p', rowKey: "O'Brien/1".replace('/', '_'), n: 1, s: 'x', big: { value: '9007199254740993', type: 'Int64' } }));
await check('getEntity', async () => {
	const e = await tc.getEntity('p', "O'Brien_1");
	eq([e.n, e.s, String(e.big)], [1, 'x', '9007199254740993'], 'values');
	if (!e.etag) throw new Error('no etag');
});
await check('upsertEntity (merge) then updateEntity with etag', async () => {
	await tc.upsertEntity({ partitionKey: 'p', rowKey: 'u', a: 1 }, 'Merge');
	const e = await tc.getEntity('p', 'u');
	await tc.updateEntity({ partitionKey: 'p', rowKey: 'u', a: 2 }, 'Replace', { etag: e.etag });
	await tc.updateEntity({ partitionKey: 'p', rowKey: 'u', b: 3 }, 'Merge');
	const f = await tc.getEntity('p', 'u');
	eq([f.a, f.b], [2, 3], 'merged');
});
await check('stale etag -> 412', async () => {
	try { await tc.updateEntity({ partitionKey: 'p', rowKey: 'u', a: 9 }, 'Replace', { etag: 'W/"datetime\'2000-01-01T00%3A00%3A00.0000000Z\'"' }); }
	catch (e) { if (e.statusCode === 412) return; throw e; }
	throw new Error('no error');
});
await check('insert 25, query byPage(10)', async () => {
	for (let i = 0; i < 25; i++) await tc.createEntity({ partitionKey: 'q', rowKey: String(i).padStart(3, '0'), i });
	const pages = [];
	for await (const page of tc.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${'q'}` } }).byPage({ maxPageSize: 10 })) pages.push(page.length);
	eq(pages, [10, 10, 5], 'page sizes');
});
await check('submitTransaction (create, upsert, update, delete)', async () => {
	const res = await tc.submitTransaction([
		['create', { partitionKey: 'b', rowKey: '1', v: 1 }],
		['create', { partitionKey: 'b', rowKey: '2', v: 2 }],
		['upsert', { partitionKey: 'b', rowKey: '3', v: 3 }, 'Replace'],
	]);
	eq(res.status, 202, 'status');
	eq(res.subResponses.length, 3, 'sub responses');
	const r2 = await tc.submitTransaction([
		['update', { partitionKey: 'b', rowKey: '1', v: 10 }, 'Merge'],
		['delete', { partitionKey: 'b', rowKey: '2' }],
	]);
	eq(r2.subResponses.length, 2, 'sub responses 2');
	const e = await tc.getEntity('b', '1');
	eq(e.v, 10, 'merged in batch');
});
await check('failing transaction names the operation', async () => {
	try {
		await tc.submitTransaction([['create', { partitionKey: 'b', rowKey: '9' }], ['create', { partitionKey: 'b', rowKey: '1' }]]);
	} catch (e) {
		if (e.statusCode === 409) return;
		throw e;
	}
	throw new Error('no error');
});
await check('deleteEntity + get -> 404', async () => {
	await tc.deleteEntity('p', 'u');
	try { await tc.getEntity('p', 'u'); } catch (e) { if (e.statusCode === 404) return; throw e; }
	throw new Error('still there');
});
await check('service getProperties / getStatistics (secondary endpoint)', async () => {
	const p = await svc.getProperties();
	if (!p) throw new Error('no properties');
	// getStatistics makes the host's first label <account>-secondary; with a path-style endpoint
	// on an IP address there is no such label, so the client is given the secondary endpoint
	// (as the emulator's secondary connection string does): stats are answered there only
	const secondary = TableServiceClient.fromConnectionString(cs.replace('/devstoreaccount1;', '/devstoreaccount1-secondary;'), opts);
	const s = await secondary.getStatistics();
	eq(s.geoReplication && s.geoReplication.status, 'live', 'geo-replication status');
	try { await svc.getStatistics(); } catch (e) { if (e.statusCode === 400) return; throw e; }
	throw new Error('getStatistics on the primary endpoint answered');
});
await check('getAccessPolicy: no stored policies', async () => {
	const acl = await tc.getAccessPolicy();
	eq((acl.signedIdentifiers || []).length, 0, 'signed identifiers');
});
await check('deleteTable', () => svc.deleteTable(table));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
