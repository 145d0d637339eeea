// cases/sas.mjs - shared access signatures made by the SDK (generateTableSas, generateAccountSas)
// and used through AzureSASCredential: every permission letter, times, IP range and protocol, a
// tampered signature, a table's SAS on another table or on table operations, and a key range
// (spk/srk/epk/erk) held on every path: point reads, queries with and without continuations,
// writes, upserts, deletes and batches inside and outside it.
import { AzureNamedKeyCredential, AzureSASCredential, TableClient, TableServiceClient, generateAccountSas, generateTableSas } from '@azure/data-tables';
import { accepts, deepEq, eq, fail, ok, rejects, test } from '../lib/harness.mjs';

const SAS = 'doc: Create a service SAS';
const ACCOUNT_SAS = 'doc: Create an account SAS';
const RANGE = `${SAS}: startpk/startrk/endpk/endrk — queries return only entities in the range; adding, updating or deleting outside it fails`;
const HOUR = 3600_000;

function sasClient(ctx, table, token) {
	return new TableClient(ctx.endpoint, table, new AzureSASCredential(token), ctx.clientOptions);
}

function tableSas(ctx, table, values) {
	return generateTableSas(table, ctx.credential, { expiresOn: new Date(Date.now() + HOUR), ...values });
}

// a table of partitions a..d, RowKeys r00..r19 each (80 entities), and its Shared Key client
async function rangeTable(ctx) {
	const tc = await ctx.newTable('sas');
	const rows = [];
	for (const pk of ['a', 'b', 'c', 'd'])
		for (let i = 0; i < 20; i++) rows.push({ partitionKey: pk, rowKey: `r${String(i).padStart(2, '0')}`, v: i });
	await ctx.load(tc, rows);
	return { tc, rows };
}

// the range b/r05 .. c/r10 of rangeTable
const RANGE_VALUES = { startPartitionKey: 'b', startRowKey: 'r05', endPartitionKey: 'c', endRowKey: 'r10' };
const inRange = (e) => (e.partitionKey === 'b' && e.rowKey >= 'r05') || (e.partitionKey === 'c' && e.rowKey <= 'r10');
const keyOf = (e) => `${e.partitionKey}/${e.rowKey}`;

test('sas.table-permissions', 'a table SAS grants exactly its letters: r reads and queries, a inserts, u updates, a+u upserts, d deletes',
	`${SAS}: permissions r (get and query entities), a (add), u (update), d (delete); Insert Or Replace and Insert Or Merge need a and u`, async (ctx) => {
		const tc = await ctx.newTable('sas');
		await tc.createEntity({ partitionKey: 'p', rowKey: 'seed', v: 1 });
		const combos = { query: 'r', add: 'a', update: 'u', delete: 'd', both: 'au' };
		let n = 0;
		for (const [label, letters] of Object.entries(combos)) {
			const permissions = { query: letters.includes('r'), add: letters.includes('a'), update: letters.includes('u'), delete: letters.includes('d') };
			const c = sasClient(ctx, tc.tableName, tableSas(ctx, tc.tableName, { permissions }));
			const may = (l) => [...l].every((x) => letters.includes(x));
			const rk = `e${n++}`;
			await tc.createEntity({ partitionKey: 'p', rowKey: rk, v: 0 });
			const { etag } = await tc.getEntity('p', rk);
			const cases = [
				['r', 'read', () => c.getEntity('p', 'seed')],
				['r', 'query', async () => { for await (const e of c.listEntities()) void e; }],
				['a', 'insert', () => c.createEntity({ partitionKey: 'p', rowKey: `${rk}-new`, v: 1 })],
				['u', 'update', () => c.updateEntity({ partitionKey: 'p', rowKey: rk, v: 2 }, 'Merge', { etag })],
				['au', 'upsert', () => c.upsertEntity({ partitionKey: 'p', rowKey: `${rk}-up`, v: 3 }, 'Replace')],
				['d', 'delete', () => c.deleteEntity('p', 'seed')],
			];
			for (const [need, what, call] of cases) {
				if (may(need)) await accepts(call(), `sp=${letters}: ${what}`);
				else await rejects(call(), { status: 403, code: 'AuthorizationPermissionMismatch' }, `sp=${letters}: ${what}`);
			}
			if (may('d')) await tc.createEntity({ partitionKey: 'p', rowKey: 'seed', v: 1 });
		}
	});

test('sas.table-scope', 'a table SAS reaches only its own table\'s entities: not another table, not Tables, not a table\'s ACL',
	`${SAS}: tn names the one table the signature is for; a service SAS for a table authorizes entity operations`, async (ctx) => {
		const tc = await ctx.newTable('sas');
		const other = await ctx.newTable('sas');
		await other.createEntity({ partitionKey: 'p', rowKey: 'r' });
		const token = tableSas(ctx, tc.tableName, { permissions: { query: true, add: true, update: true, delete: true } });
		const c = sasClient(ctx, tc.tableName, token);
		await accepts(c.createEntity({ partitionKey: 'p', rowKey: 'r' }), 'its own table');
		const elsewhere = sasClient(ctx, other.tableName, token);
		await rejects(elsewhere.getEntity('p', 'r'), { status: 403 }, 'a point read in another table');
		await rejects(elsewhere.createEntity({ partitionKey: 'p', rowKey: 'x' }), { status: 403 }, 'an insert into another table');
		const svc = new TableServiceClient(ctx.endpoint, new AzureSASCredential(token), ctx.clientOptions);
		await rejects((async () => { for await (const t of svc.listTables()) void t; })(), { status: 403 }, 'Query Tables');
		await rejects(svc.createTable(ctx.tableName('sas')), { status: 403 }, 'Create Table');
		await rejects(svc.deleteTable(tc.tableName), { status: 403 }, 'Delete Table');
		await rejects(c.getAccessPolicy(), { status: 403 }, 'Get Table ACL');
		eq((await other.getEntity('p', 'r')).rowKey, 'r', 'the other table is untouched');
	});

test('sas.times', 'a SAS past its expiry or before its start is 403 AuthenticationFailed; one within its window works',
	`${SAS}: se (required without a stored policy) and st bound when the signature is valid`, async (ctx) => {
		const tc = await ctx.newTable('sas');
		await tc.createEntity({ partitionKey: 'p', rowKey: 'r' });
		const perms = { query: true };
		const expired = tableSas(ctx, tc.tableName, { permissions: perms, expiresOn: new Date(Date.now() - 60_000) });
		await rejects(sasClient(ctx, tc.tableName, expired).getEntity('p', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'expired a minute ago');
		const future = tableSas(ctx, tc.tableName, { permissions: perms, startsOn: new Date(Date.now() + 10 * 60_000) });
		await rejects(sasClient(ctx, tc.tableName, future).getEntity('p', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'starts in ten minutes');
		const now = tableSas(ctx, tc.tableName, { permissions: perms, startsOn: new Date(Date.now() - 60_000) });
		await accepts(sasClient(ctx, tc.tableName, now).getEntity('p', 'r'), 'started a minute ago, expires in an hour');
	});

test('sas.tampered', 'a SAS whose signature or signed fields were changed is 403 AuthenticationFailed',
	`${SAS}: sig is the HMAC-SHA256 of the string to sign (sp, st, se, the table, si, sip, spr, sv, the key range) with the account key`, async (ctx) => {
		const tc = await ctx.newTable('sas');
		await tc.createEntity({ partitionKey: 'b', rowKey: 'r' });
		await tc.createEntity({ partitionKey: 'z', rowKey: 'r' });
		const token = tableSas(ctx, tc.tableName, { permissions: { query: true }, startPartitionKey: 'a', endPartitionKey: 'c' });
		await accepts(sasClient(ctx, tc.tableName, token).getEntity('b', 'r'), 'the token as made');
		const p = new URLSearchParams(token);
		const sig = p.get('sig');
		const flipped = new URLSearchParams(p);
		flipped.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
		const widened = new URLSearchParams(p);
		widened.set('sp', 'raud');
		const unbounded = new URLSearchParams(p);
		unbounded.delete('epk');
		const later = new URLSearchParams(p);
		later.set('se', new Date(Date.now() + 48 * HOUR).toISOString().replace(/\.\d+Z$/, 'Z'));
		for (const [what, q] of [['a changed signature', flipped], ['sp widened to raud', widened], ['epk removed', unbounded], ['se moved later', later]]) {
			await rejects(sasClient(ctx, tc.tableName, q.toString()).getEntity('z', 'r'), { status: 403, code: 'AuthenticationFailed' }, what);
		}
		const otherKey = generateTableSas(tc.tableName, new AzureNamedKeyCredential(ctx.account, Buffer.alloc(64, 7).toString('base64')),
			{ permissions: { query: true }, expiresOn: new Date(Date.now() + HOUR) });
		await rejects(sasClient(ctx, tc.tableName, otherKey).getEntity('b', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'signed with another key');
	});

test('sas.ip-and-protocol', 'sip outside the client\'s address and spr=https over HTTP are refused; sip including it works',
	`${SAS}: sip limits the client addresses, spr the protocols (AuthorizationSourceIPMismatch, AuthorizationProtocolMismatch)`, async (ctx) => {
		const tc = await ctx.newTable('sas');
		await tc.createEntity({ partitionKey: 'p', rowKey: 'r' });
		const perms = { query: true };
		const mk = (v) => sasClient(ctx, tc.tableName, tableSas(ctx, tc.tableName, { permissions: perms, ...v }));
		await accepts(mk({ ipRange: { start: '127.0.0.1' } }).getEntity('p', 'r'), 'sip=127.0.0.1');
		await accepts(mk({ ipRange: { start: '127.0.0.0', end: '127.255.255.255' } }).getEntity('p', 'r'), 'sip=127.0.0.0-127.255.255.255');
		await rejects(mk({ ipRange: { start: '10.1.2.3' } }).getEntity('p', 'r'), { status: 403, code: 'AuthorizationSourceIPMismatch' }, 'sip=10.1.2.3');
		await rejects(mk({ protocol: 'https' }).getEntity('p', 'r'), { status: 403, code: 'AuthorizationProtocolMismatch' }, 'spr=https over http');
		await accepts(mk({ protocol: 'https,http' }).getEntity('p', 'r'), 'spr=https,http');
	});

test('sas.range-reads', 'a key range: point reads inside work and outside are 403; queries return only the range, paged or not, filtered or not',
	RANGE, async (ctx) => {
		const { tc, rows } = await rangeTable(ctx);
		const c = sasClient(ctx, tc.tableName, tableSas(ctx, tc.tableName, { permissions: { query: true }, ...RANGE_VALUES }));
		const want = rows.filter(inRange).map(keyOf);
		eq(want.length, 26, 'entities in the range');
		deepEq((await ctx.all(c)).map(keyOf), want, 'an unfiltered query');
		const paged = [];
		let pages = 0;
		for await (const page of c.listEntities().byPage({ maxPageSize: 4 })) {
			pages++;
			for (const e of page) paged.push(keyOf(e));
		}
		deepEq(paged, want, 'pages of 4 with continuations');
		ok(pages >= 7, `pages of 4 (${pages})`);
		deepEq((await ctx.all(c, { queryOptions: { filter: "v ge 8" } })).map(keyOf), rows.filter((e) => inRange(e) && e.v >= 8).map(keyOf), 'a filter on a property');
		deepEq((await ctx.all(c, { queryOptions: { filter: "PartitionKey eq 'a' or PartitionKey eq 'd'" } })).map(keyOf), [], 'a filter naming only partitions outside');
		deepEq((await ctx.all(c, { queryOptions: { filter: "RowKey eq 'r00' or RowKey eq 'r19'" } })).map(keyOf), ['b/r19', 'c/r00'], 'a filter on RowKeys across partitions');
		eq((await c.getEntity('b', 'r05')).v, 5, 'the first entity of the range');
		eq((await c.getEntity('c', 'r10')).v, 10, 'the last entity of the range');
		for (const [pk, rk] of [['b', 'r04'], ['c', 'r11'], ['a', 'r10'], ['d', 'r00']])
			await rejects(c.getEntity(pk, rk), { status: 403 }, `a point read of ${pk}/${rk}`);
	});

// a continuation token as the gateway writes them ("1!<n>!<base64, URL-safe>"; clients never parse them)
function token(key) {
	const b = Buffer.from(key, 'utf8').toString('base64').replace(/\+/g, '.').replace(/\//g, '_').replace(/=/g, '-');
	return `1!${b.length}!${b}`;
}

test('sas.range-continuation', 'a continuation token pointing outside the range does not lead out of it',
	`${RANGE}; doc: Query timeout and pagination: the continuation is where the next page starts`, async (ctx) => {
		const { tc, rows } = await rangeTable(ctx);
		const sas = tableSas(ctx, tc.tableName, { permissions: { query: true }, ...RANGE_VALUES });
		const want = rows.filter(inRange).map(keyOf);
		for (const [npk, nrk] of [['a', 'r00'], ['c', 'r11'], ['d', 'r00']]) {
			const q = `${sas}&NextPartitionKey=${token(npk)}&NextRowKey=${token(nrk)}`;
			const res = await ctx.raw.request({ path: `${tc.tableName}()`, query: q, auth: 'none' });
			eq(res.status, 200, `a query from ${npk}/${nrk}`);
			const got = (res.json?.value ?? []).map((e) => `${e.PartitionKey}/${e.RowKey}`);
			const expect = want.filter((k) => k >= `${npk}/${nrk}`);
			deepEq(got, expect, `the page from ${npk}/${nrk}`);
		}
	});

test('sas.range-writes', 'a key range: inserts, updates, upserts and deletes inside work; outside they are 403 and change nothing',
	RANGE, async (ctx) => {
		const { tc } = await rangeTable(ctx);
		const c = sasClient(ctx, tc.tableName, tableSas(ctx, tc.tableName, { permissions: { query: true, add: true, update: true, delete: true }, ...RANGE_VALUES }));
		await accepts(c.createEntity({ partitionKey: 'b', rowKey: 'r05x', v: 100 }), 'insert inside');
		await accepts(c.upsertEntity({ partitionKey: 'c', rowKey: 'r10', v: 101 }, 'Merge'), 'upsert inside');
		await accepts(c.updateEntity({ partitionKey: 'b', rowKey: 'r06', v: 102 }, 'Replace', { etag: '*' }), 'update inside');
		await accepts(c.deleteEntity('b', 'r07'), 'delete inside');
		const before = new Map((await ctx.all(tc)).map((e) => [keyOf(e), e.etag]));
		const outside = [
			['insert b/r04x', () => c.createEntity({ partitionKey: 'b', rowKey: 'r04x', v: 1 })],
			['insert c/r11', () => c.createEntity({ partitionKey: 'c', rowKey: 'r11a', v: 1 })],
			['insert e/r00', () => c.createEntity({ partitionKey: 'e', rowKey: 'r00', v: 1 })],
			['upsert (merge) a/r00', () => c.upsertEntity({ partitionKey: 'a', rowKey: 'r00', v: 1 }, 'Merge')],
			['upsert (replace) d/r19', () => c.upsertEntity({ partitionKey: 'd', rowKey: 'r19', v: 1 }, 'Replace')],
			['update b/r04', () => c.updateEntity({ partitionKey: 'b', rowKey: 'r04', v: 1 }, 'Merge', { etag: '*' })],
			['delete c/r11', () => c.deleteEntity('c', 'r11')],
			['delete a/r05', () => c.deleteEntity('a', 'r05')],
		];
		for (const [what, call] of outside) await rejects(call(), { status: 403 }, what);
		const after = new Map((await ctx.all(tc)).map((e) => [keyOf(e), e.etag]));
		deepEq([...after.entries()], [...before.entries()], 'the table after the refused writes');
	});

test('sas.range-batch', 'a key range: a batch inside commits; a batch with one operation outside is 403 and writes nothing',
	`${RANGE}; doc: Performing entity group transactions: all or nothing`, async (ctx) => {
		const { tc } = await rangeTable(ctx);
		const c = sasClient(ctx, tc.tableName, tableSas(ctx, tc.tableName, { permissions: { query: true, add: true, update: true, delete: true }, ...RANGE_VALUES }));
		const res = await c.submitTransaction([
			['create', { partitionKey: 'b', rowKey: 'r50', v: 1 }],
			['upsert', { partitionKey: 'b', rowKey: 'r06', v: 2 }, 'Merge'],
			['delete', { partitionKey: 'b', rowKey: 'r08' }],
		]);
		eq(res.status, 202, 'a batch inside');
		const before = new Map((await ctx.all(tc)).map((e) => [keyOf(e), e.etag]));
		for (const [what, ops] of [
			['an insert before the range', [['create', { partitionKey: 'b', rowKey: 'r51' }], ['create', { partitionKey: 'b', rowKey: 'r00x' }]]],
			['a delete before the range', [['upsert', { partitionKey: 'b', rowKey: 'r09', v: 9 }], ['delete', { partitionKey: 'b', rowKey: 'r01' }]]],
			['an upsert after the range', [['upsert', { partitionKey: 'c', rowKey: 'r09', v: 9 }], ['upsert', { partitionKey: 'c', rowKey: 'r12', v: 9 }, 'Replace']]],
			['every operation outside', [['create', { partitionKey: 'a', rowKey: 'x1' }], ['create', { partitionKey: 'a', rowKey: 'x2' }]]],
		]) {
			let refused = false;
			try {
				const r = await c.submitTransaction(ops);
				refused = r.status >= 400 || r.subResponses.some((s) => s.status >= 400);
			} catch (e) {
				refused = (e.statusCode ?? e.response?.status) === 403;
				if (!refused) fail(`${what}: expected 403, got ${e.statusCode ?? ''} ${e.code ?? ''} ${String(e.message).split('\n')[0].slice(0, 100)}`);
			}
			ok(refused, `${what}: refused`);
		}
		const after = new Map((await ctx.all(tc)).map((e) => [keyOf(e), e.etag]));
		deepEq([...after.entries()], [...before.entries()], 'the table after the refused batches');
	});

test('sas.range-one-partition', 'a range of one partition (spk = epk) reads and writes that partition only',
	`${SAS}: if startpk equals endpk the signature authorizes one partition`, async (ctx) => {
		const { tc, rows } = await rangeTable(ctx);
		const c = sasClient(ctx, tc.tableName, tableSas(ctx, tc.tableName, { permissions: { query: true, add: true }, startPartitionKey: 'c', endPartitionKey: 'c' }));
		deepEq((await ctx.all(c)).map(keyOf), rows.filter((e) => e.partitionKey === 'c').map(keyOf), 'a query');
		await accepts(c.createEntity({ partitionKey: 'c', rowKey: 'zz' }), 'an insert into c');
		await rejects(c.createEntity({ partitionKey: 'cc', rowKey: 'zz' }), { status: 403 }, 'an insert into cc');
		await rejects(c.getEntity('b', 'r00'), { status: 403 }, 'a point read in b');
	});

test('sas.account', 'an account SAS (ss=t, srt=sco) lists, creates and deletes tables and reads and writes entities; its letters and types are enforced',
	`${ACCOUNT_SAS}: ss names the services, srt the resource types (s service, c tables, o entities), sp the permissions`, async (ctx) => {
		const all = { query: true, write: true, delete: true, list: true, add: true, update: true };
		const mk = (permissions, resourceTypes = 'sco', services = { table: true }) =>
			new AzureSASCredential(generateAccountSas(ctx.credential, { expiresOn: new Date(Date.now() + HOUR), permissions, resourceTypes, services }));
		const full = mk(all);
		const svc = new TableServiceClient(ctx.endpoint, full, ctx.clientOptions);
		const name = ctx.tableName('sas');
		await accepts(svc.createTable(name), 'Create Table');
		const listed = [];
		for await (const t of svc.listTables({ queryOptions: { filter: `TableName eq '${name}'` } })) listed.push(t.name);
		deepEq(listed, [name], 'Query Tables');
		const c = new TableClient(ctx.endpoint, name, full, ctx.clientOptions);
		await accepts(c.createEntity({ partitionKey: 'p', rowKey: 'r', v: 1 }), 'Insert Entity');
		eq((await c.getEntity('p', 'r')).v, 1, 'Get Entity');
		await accepts(c.submitTransaction([['upsert', { partitionKey: 'p', rowKey: 's' }], ['delete', { partitionKey: 'p', rowKey: 'r' }]]), 'a batch');
		await accepts(svc.getProperties(), 'Get Service Properties');

		const readOnly = new TableClient(ctx.endpoint, name, mk({ query: true, list: true }), ctx.clientOptions);
		eq((await ctx.all(readOnly)).length, 1, 'a query with sp=rl');
		await rejects(readOnly.createEntity({ partitionKey: 'p', rowKey: 'x' }), { status: 403, code: 'AuthorizationPermissionMismatch' }, 'an insert with sp=rl');
		await rejects(readOnly.deleteEntity('p', 's'), { status: 403, code: 'AuthorizationPermissionMismatch' }, 'a delete with sp=rl');
		const objectsOnly = mk(all, 'o');
		await rejects(new TableServiceClient(ctx.endpoint, objectsOnly, ctx.clientOptions).createTable(ctx.tableName('sas')),
			{ status: 403, code: 'AuthorizationResourceTypeMismatch' }, 'Create Table with srt=o');
		await accepts(new TableClient(ctx.endpoint, name, objectsOnly, ctx.clientOptions).getEntity('p', 's'), 'Get Entity with srt=o');
		await rejects(new TableClient(ctx.endpoint, name, mk(all, 'sc'), ctx.clientOptions).getEntity('p', 's'),
			{ status: 403, code: 'AuthorizationResourceTypeMismatch' }, 'Get Entity with srt=sc');
		await rejects(new TableClient(ctx.endpoint, name, mk(all, 'sco', { blob: true, queue: true }), ctx.clientOptions).getEntity('p', 's'),
			{ status: 403, code: 'AuthorizationServiceMismatch' }, 'ss=bq (no table service)');
		await rejects(new TableServiceClient(ctx.endpoint, mk({ query: true, list: true }), ctx.clientOptions).deleteTable(name),
			{ status: 403, code: 'AuthorizationPermissionMismatch' }, 'Delete Table with sp=rl');
		await accepts(svc.deleteTable(name), 'Delete Table');
	});

test('sas.account-expired', 'an account SAS past its expiry is 403 AuthenticationFailed',
	`${ACCOUNT_SAS}: se bounds the signature's validity`, async (ctx) => {
		const token = generateAccountSas(ctx.credential, { expiresOn: new Date(Date.now() - 60_000), permissions: { list: true }, resourceTypes: 'sco', services: { table: true } });
		const svc = new TableServiceClient(ctx.endpoint, new AzureSASCredential(token), ctx.clientOptions);
		await rejects((async () => { for await (const t of svc.listTables()) void t; })(), { status: 403, code: 'AuthenticationFailed' }, 'Query Tables');
	});

const ACL = 'doc: Set Table ACL / Get Table ACL';

test('sas.acl-roundtrip', 'setAccessPolicy stores up to 5 policies and getAccessPolicy returns them; 6 are refused; an empty list clears them',
	`${ACL}: a table has at most five stored access policies (Id up to 64 characters, Start, Expiry, Permission)`, async (ctx) => {
		const tc = await ctx.newTable('acl');
		const start = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
		const expiry = new Date(Date.UTC(2030, 5, 6, 7, 8, 9));
		await tc.setAccessPolicy([
			{ id: 'readers', accessPolicy: { start, expiry, permission: 'r' } },
			{ id: 'writers', accessPolicy: { permission: 'raud' } },
			{ id: 'x'.repeat(64), accessPolicy: { expiry } },
		]);
		const got = await tc.getAccessPolicy(); // the SDK answers the list itself
		const ids = got.map((s) => s.id).sort();
		deepEq(ids, ['readers', 'writers', 'x'.repeat(64)].sort(), 'the Ids');
		const readers = got.find((s) => s.id === 'readers');
		eq(readers.accessPolicy?.permission, 'r', 'readers: Permission');
		eq(new Date(readers.accessPolicy?.start).getTime(), start.getTime(), 'readers: Start');
		eq(new Date(readers.accessPolicy?.expiry).getTime(), expiry.getTime(), 'readers: Expiry');
		eq(got.find((s) => s.id === 'writers').accessPolicy?.permission, 'raud', 'writers: Permission');
		await rejects(tc.setAccessPolicy(Array.from({ length: 6 }, (_, i) => ({ id: `p${i}`, accessPolicy: { permission: 'r' } }))),
			{ status: 400 }, 'six policies');
		eq((await tc.getAccessPolicy()).length, 3, 'the policies after the refused Set');
		await tc.setAccessPolicy([]);
		eq((await tc.getAccessPolicy()).length, 0, 'after an empty Set');
	});

test('sas.stored-policy', 'a SAS naming a stored policy takes its permissions and times; changing or deleting the policy changes or revokes the token',
	`${SAS}: si names a stored access policy, which gives the fields the token leaves out (a field may not be in both); ${ACL}: deleting a policy revokes the signatures issued under it`, async (ctx) => {
		const tc = await ctx.newTable('acl');
		await tc.createEntity({ partitionKey: 'p', rowKey: 'r' });
		await tc.setAccessPolicy([{ id: 'readers', accessPolicy: { permission: 'r', expiry: new Date(Date.now() + HOUR) } }]);
		const c = sasClient(ctx, tc.tableName, generateTableSas(tc.tableName, ctx.credential, { identifier: 'readers' }));
		eq((await c.getEntity('p', 'r')).rowKey, 'r', 'a read under the policy');
		await rejects(c.createEntity({ partitionKey: 'p', rowKey: 's' }), { status: 403, code: 'AuthorizationPermissionMismatch' }, 'an insert under a read policy');
		// widen the policy: the same token may now insert
		await tc.setAccessPolicy([{ id: 'readers', accessPolicy: { permission: 'ra', expiry: new Date(Date.now() + HOUR) } }]);
		await accepts(c.createEntity({ partitionKey: 'p', rowKey: 's' }), 'an insert after the policy was widened');
		// a policy that has expired
		await tc.setAccessPolicy([{ id: 'readers', accessPolicy: { permission: 'r', expiry: new Date(Date.now() - 60_000) } }]);
		await rejects(c.getEntity('p', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'a read after the policy expired');
		// a token that sets a field its policy sets too
		await tc.setAccessPolicy([{ id: 'readers', accessPolicy: { permission: 'r', expiry: new Date(Date.now() + HOUR) } }]);
		const both = sasClient(ctx, tc.tableName, generateTableSas(tc.tableName, ctx.credential, { identifier: 'readers', permissions: { query: true } }));
		await rejects(both.getEntity('p', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'sp in the token and in the policy');
		// a policy without an expiry, the token giving it
		await tc.setAccessPolicy([{ id: 'readers', accessPolicy: { permission: 'r' } }]);
		const dated = sasClient(ctx, tc.tableName, generateTableSas(tc.tableName, ctx.credential, { identifier: 'readers', expiresOn: new Date(Date.now() + HOUR) }));
		await accepts(dated.getEntity('p', 'r'), 'the expiry from the token, the permission from the policy');
		// deleting the policy revokes every token naming it
		await tc.setAccessPolicy([]);
		await rejects(dated.getEntity('p', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'a read after the policy was deleted');
		await rejects(c.getEntity('p', 'r'), { status: 403, code: 'AuthenticationFailed' }, 'the first token after the policy was deleted');
	});

test('raw.acl-xml', 'Set Table ACL reads the documented XML (declaration, whitespace, entities) and Get returns it; malformed XML is 400 InvalidXmlDocument',
	`${ACL}: the request body is a SignedIdentifiers document; *Common REST API error codes*: InvalidXmlDocument`, async (ctx) => {
		const tc = await ctx.newTable('acl');
		const body = `<?xml version="1.0" encoding="utf-8"?>
<SignedIdentifiers>
  <SignedIdentifier>
    <Id>a&amp;b&#x43;</Id>
    <AccessPolicy>
      <Start>2026-01-02T03:04:05.0000000Z</Start>
      <Expiry>2027-01-02T03:04:05Z</Expiry>
      <Permission>ru</Permission>
    </AccessPolicy>
  </SignedIdentifier>
  <!-- a comment -->
  <SignedIdentifier><Id>second</Id><AccessPolicy/></SignedIdentifier>
</SignedIdentifiers>`;
		const put = await ctx.raw.request({ method: 'PUT', path: tc.tableName, query: 'comp=acl', body, headers: { 'Content-Type': 'application/xml' } });
		eq(put.status, 204, 'Set Table ACL');
		const get = await ctx.raw.request({ path: tc.tableName, query: 'comp=acl', headers: { Accept: 'application/xml' } });
		eq(get.status, 200, 'Get Table ACL');
		ok(/<SignedIdentifier><Id>a&amp;bC<\/Id><AccessPolicy><Start>2026-01-02T03:04:05\.0000000Z<\/Start><Expiry>2027-01-02T03:04:05\.0000000Z<\/Expiry><Permission>ru<\/Permission><\/AccessPolicy><\/SignedIdentifier>/.test(get.text),
			`the first policy as stored: ${get.text.slice(0, 300)}`);
		// an identifier whose access policy is empty comes back without <AccessPolicy>, as the
		// service's recording shows (issue 27.6)
		ok(/<SignedIdentifier><Id>second<\/Id><\/SignedIdentifier>/.test(get.text), 'the second policy, without fields');
		for (const [what, bad] of [
			['not XML', 'hello'],
			['an unclosed element', '<SignedIdentifiers><SignedIdentifier><Id>x</Id>'],
			['another root', '<Policies/>'],
			['an identifier without an Id', '<SignedIdentifiers><SignedIdentifier><AccessPolicy/></SignedIdentifier></SignedIdentifiers>'],
			['a bad entity', '<SignedIdentifiers><SignedIdentifier><Id>&nope;</Id></SignedIdentifier></SignedIdentifiers>'],
			['six identifiers', `<SignedIdentifiers>${Array.from({ length: 6 }, (_, i) => `<SignedIdentifier><Id>p${i}</Id></SignedIdentifier>`).join('')}</SignedIdentifiers>`],
		]) {
			const res = await ctx.raw.request({ method: 'PUT', path: tc.tableName, query: 'comp=acl', body: bad, headers: { 'Content-Type': 'application/xml' } });
			eq(res.status, 400, `${what}: status`);
			ok(/InvalidXmlDocument|InvalidInput/.test(res.text + (res.headers['x-ms-error-code'] ?? '')), `${what}: code (${res.headers['x-ms-error-code']})`);
		}
		const after = await ctx.raw.request({ path: tc.tableName, query: 'comp=acl' });
		ok(after.text.includes('<Id>second</Id>'), 'the policies after the refused Sets');
		const bad = await ctx.raw.request({ method: 'PUT', path: tc.tableName, query: 'comp=acl', headers: { 'Content-Type': 'application/xml' },
			body: '<SignedIdentifiers><SignedIdentifier><Id>p</Id><AccessPolicy><Permission>rw</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>' });
		eq(bad.status, 400, 'a permission letter a table does not know');
	});

test('sas.account-letters', 'an account SAS grants exactly its letters: l lists tables, w creates them, d deletes, r reads, a inserts, u updates, a+u upserts',
	`${ACCOUNT_SAS}: permissions r (read), w (write), d (delete), l (list), a (add), u (update) by operation`, async (ctx) => {
		const tc = await ctx.newTable('sas');
		await tc.createEntity({ partitionKey: 'p', rowKey: 'seed', v: 1 });
		const letters = { query: 'r', write: 'w', delete: 'd', list: 'l', add: 'a', update: 'u' };
		let n = 0;
		for (const [perm, letter] of Object.entries(letters)) {
			const cred = new AzureSASCredential(generateAccountSas(ctx.credential,
				{ expiresOn: new Date(Date.now() + HOUR), permissions: { [perm]: true }, resourceTypes: 'sco' }));
			const svc = new TableServiceClient(ctx.endpoint, cred, ctx.clientOptions);
			const c = new TableClient(ctx.endpoint, tc.tableName, cred, ctx.clientOptions);
			const rk = `e${n++}`;
			await tc.createEntity({ partitionKey: 'p', rowKey: rk });
			const newTable = ctx.tableName('sas');
			const ops = [
				['l', 'Query Tables', async () => { for await (const t of svc.listTables()) void t; }],
				['w', 'Create Table', () => svc.createTable(newTable)],
				['r', 'Get Entity', () => c.getEntity('p', 'seed')],
				['a', 'Insert Entity', () => c.createEntity({ partitionKey: 'p', rowKey: `${rk}-new` })],
				['u', 'Update Entity', () => c.updateEntity({ partitionKey: 'p', rowKey: rk, v: 2 }, 'Merge', { etag: '*' })],
				['au', 'Insert Or Replace', () => c.upsertEntity({ partitionKey: 'p', rowKey: `${rk}-up` }, 'Replace')],
				['d', 'Delete Entity', () => c.deleteEntity('p', rk)],
			];
			for (const [need, what, call] of ops) {
				if ([...need].every((x) => x === letter)) await accepts(call(), `sp=${letter}: ${what}`);
				else await rejects(call(), { status: 403, code: 'AuthorizationPermissionMismatch' }, `sp=${letter}: ${what}`);
			}
			if (letter === 'd') {
				await accepts(svc.deleteTable(newTable).catch((e) => { if ((e.statusCode ?? 0) !== 404) throw e; }), 'sp=d: Delete Table');
			}
		}
	});
