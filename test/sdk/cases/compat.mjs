// cases/compat.mjs - requests real applications and tools send that the service serves (issue 32):
// a DateTime without a UTC offset (the service takes it as UTC; Azurite's own suite writes its
// dates so), $top=0 (Storage Explorer sends it), and true / false in $filter, as literals in any
// letter case and as expressions of their own. Through the SDK where it sends them, raw HTTP
// where it does not.
import { deepEq, eq, ok, test } from '../lib/harness.mjs';
import { NOMETA } from '../lib/http.mjs';
import { ticks } from './entities.mjs';

const DM = 'doc: Understanding the Table service data model (Edm.DateTime is UTC)';
const TRACE = 'the live service\'s trace in Azure/Azurite#746 ("2012-01-02T23:00:00" written, "2012-01-02T23:00:00Z" read back)';

test('compat.datetime-no-offset', 'a DateTime written without an offset is stored and returned as UTC, with Z',
	`${DM}; ${TRACE}; contract §1`, async (ctx) => {
		const tc = await ctx.newTable();
		const values = { a: '2023-01-01T23:00:00', b: '2023-01-01T23:00:00.1234567', c: '2012-01-02T23:00:00.5' };
		const props = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, type: 'DateTime' }]));
		await tc.createEntity({ partitionKey: 'p', rowKey: 'sdk', ...props });
		const typed = await tc.getEntity('p', 'sdk', { disableTypeConversion: true });
		for (const [k, v] of Object.entries(values)) {
			eq(typed[k]?.type, 'DateTime', `${k}: type`);
			ok(/Z$/.test(typed[k]?.value) && ticks(typed[k].value) === ticks(`${v}Z`), `${k} (${v}) read back as ${typed[k]?.value}`);
		}
		const plain = await tc.getEntity('p', 'sdk');
		ok(plain.a instanceof Date && plain.a.getTime() === Date.parse('2023-01-01T23:00:00Z'), `a as a Date: ${plain.a}`);
		// in a batch, and in a raw body as the legacy clients write it
		await tc.submitTransaction([['create', { partitionKey: 'p', rowKey: 'batch', d: { value: '2023-01-01T23:00:00', type: 'DateTime' } }]]);
		const r = await ctx.raw.request({ method: 'POST', path: tc.tableName, headers: { Accept: NOMETA },
			body: { PartitionKey: 'p', RowKey: 'raw', d: '2023-01-01T23:00:00.1234567', 'd@odata.type': 'Edm.DateTime' } });
		eq(r.status, 201, `raw insert status (${r.code ?? ''})`);
		eq(r.json?.d, '2023-01-01T23:00:00.1234567Z', 'raw insert echoes UTC');
		// the filter literal without an offset is UTC as well
		const got = await ctx.all(tc, { queryOptions: { filter: "d eq datetime'2023-01-01T23:00:00' or a eq datetime'2023-01-01T23:00:00'" } });
		deepEq(got.map((e) => e.rowKey), ['batch', 'sdk'], 'datetime literal without an offset');
	});

test('compat.datetime-still-refused', 'a DateTime the service does not read stays 400 InvalidInput',
	`${DM}; contract §1 (no date alone, no lower-case z, no offset without a colon)`, async (ctx) => {
		const tc = await ctx.newTable();
		for (const v of ['2023-01-01', '2023-01-01T23:00:00z', '2023-01-01T23:00:00+0100', '2023-01-01 23:00:00']) {
			const r = await ctx.raw.request({ method: 'POST', path: tc.tableName,
				body: { PartitionKey: 'p', RowKey: 'x', d: v, 'd@odata.type': 'Edm.DateTime' } });
			eq(r.status, 400, `${v}: status`);
		}
	});

test('compat.top-zero-entities', '$top=0 on Query Entities is 200 with no entity and the continuation of the first that would come',
	'Storage Explorer sends $top=0 (its request line as Azurite\'s table.entity.rest tests replay it); contract §5 and §12', async (ctx) => {
		const tc = await ctx.newTable();
		await ctx.load(tc, Array.from({ length: 5 }, (_, i) => ({ partitionKey: '0', rowKey: String(i) })));
		// the request Storage Explorer sends
		const r = await ctx.raw.request({ path: tc.tableName, query: '%24select=&%24filter=PartitionKey%20eq%20%270%27&%24top=0',
			headers: { Accept: NOMETA } });
		eq(r.status, 200, `status (${r.code ?? ''})`);
		deepEq(r.json?.value, [], 'no entity');
		ok(r.headers['x-ms-continuation-nextpartitionkey'] && r.headers['x-ms-continuation-nextrowkey'], 'a continuation');
		// the SDK's page of size 0, resumed with a real page size from its token
		const first = (await tc.listEntities().byPage({ maxPageSize: 0 }).next()).value;
		eq(first.length, 0, 'SDK page of $top=0');
		ok(first.continuationToken, 'SDK continuation token');
		const rest = (await tc.listEntities().byPage({ maxPageSize: 10, continuationToken: first.continuationToken }).next()).value;
		deepEq(rest.map((e) => e.rowKey), ['0', '1', '2', '3', '4'], 'resumed at the first entity');
		// nothing would come: no continuation
		const none = await ctx.raw.request({ path: tc.tableName, query: "$filter=PartitionKey%20eq%20'none'&$top=0" });
		eq(none.status, 200, 'empty result status');
		ok(!none.headers['x-ms-continuation-nextpartitionkey'], 'no continuation when nothing would come');
	});

test('compat.top-zero-tables', '$top=0 on Query Tables is 200 with no table',
	'contract §12 ($top 0-1000 on Query Tables too)', async (ctx) => {
		await ctx.newTable();
		const r = await ctx.raw.request({ path: 'Tables', query: '$top=0', headers: { Accept: NOMETA } });
		eq(r.status, 200, `status (${r.code ?? ''})`);
		deepEq(r.json?.value, [], 'no table');
		ok(r.headers['x-ms-continuation-nexttablename'], 'the continuation names the first table');
	});

test('compat.filter-boolean-literals', 'true and false in $filter: in any letter case, and as expressions of their own',
	'MS-ODATA (boolean literals are expressions); Azurite\'s query tests (myBool eq True / FALSE, (true and RowKey eq \'1\') or false); contract §5', async (ctx) => {
		const tc = await ctx.newTable();
		await ctx.load(tc, [
			{ partitionKey: 'p1', rowKey: '1', myBool: true }, { partitionKey: 'p1', rowKey: '2', myBool: false },
			{ partitionKey: 'p2', rowKey: '1', myBool: true }, { partitionKey: 'p3', rowKey: '1', myBool: false },
		]);
		const keys = async (filter) => (await ctx.all(tc, { queryOptions: { filter } })).map((e) => `${e.partitionKey}/${e.rowKey}`);
		const all = ['p1/1', 'p1/2', 'p2/1', 'p3/1'];
		deepEq(await keys('true'), all, '$filter=true');
		deepEq(await keys('false'), [], '$filter=false');
		deepEq(await keys('not true'), [], 'not true');
		deepEq(await keys('FALSE or True'), all, 'FALSE or True');
		deepEq(await keys("(true and RowKey eq '1') and ((false or PartitionKey eq 'p1') or PartitionKey eq 'p2') or PartitionKey eq 'p3'"),
			['p1/1', 'p2/1', 'p3/1'], "Azurite's precedence filter");
		deepEq(await keys("true and PartitionKey eq 'p1' and RowKey eq '2'"), ['p1/2'], 'a point query under true');
		deepEq(await keys('myBool eq True'), ['p1/1', 'p2/1'], 'myBool eq True');
		deepEq(await keys('myBool eq FALSE'), ['p1/2', 'p3/1'], 'myBool eq FALSE');
		deepEq(await keys('myBool eq truE'), ['p1/1', 'p2/1'], 'myBool eq truE');
		// Query Tables
		const tables = [];
		for await (const t of ctx.svc.listTables({ queryOptions: { filter: `TableName eq '${tc.tableName}' and true` } })) tables.push(t.name);
		deepEq(tables, [tc.tableName], 'Query Tables under true');
		const r = await ctx.raw.request({ path: 'Tables', query: '$filter=false', headers: { Accept: NOMETA } });
		eq(r.status, 200, `Query Tables $filter=false status (${r.code ?? ''})`);
		deepEq(r.json?.value, [], 'Query Tables $filter=false');
	});
