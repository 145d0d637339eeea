// test/clients/azure-storage/azure_storage_test.mjs - the legacy Node library azure-storage 2.10.7
// (TableService, TableBatch, TableQuery, continuation tokens, SAS, ACLs) against
// tablestore-gateway, each check written from the service's documentation and the library's
// documented behaviour. One line per check, "N passed, N failed"; exit 1 on a failure.
//
//   node azure_storage_test.mjs --port N [--package test/sdk/package.json]
//   node azure_storage_test.mjs --port N --crash-read t,pk,rk (a read right after a node crash)
//
// It uses the development account devstoreaccount1 on the path-style endpoint
// http://127.0.0.1:N/devstoreaccount1, as applications point the library at Azurite.
import { args, call, check, connectionString, endpoint, entity, eq, etagOf, Fail, loadClient, must, ok, summary,
	uniqueName, values, wantErr, DEV_KEY } from './lib.mjs';
import { etagOrderChecks, crashRead } from './etag_order.mjs';
import { req } from '../../gateway/http_lib.mjs';

const A = args();
if (!A.port) {
	console.error('usage: azure_storage_test.mjs --port N [--package PATH] [--crash-read t,pk,rk]');
	process.exit(2);
}
const azure = loadClient(A.package);
const { TableBatch, TableQuery, TableUtilities } = azure;
const { PayloadFormat, EdmType, QueryComparisons, TableOperators } = TableUtilities;
const svc = azure.createTableService(connectionString(A.port));

if (A['crash-read']) {
	await crashRead(azure, svc, A['crash-read']);
} else {
	await tableChecks();
	await entityChecks();
	await typeChecks();
	await batchChecks();
	await queryChecks();
	await sasChecks();
	await aclChecks();
	await etagOrderChecks(azure, svc);
}
process.exit(summary() ? 0 : 1);

// ------------------------------------------------------------------------------------- tables
async function tableChecks() {
	const prefix = uniqueName('astab');
	const names = ['a', 'b', 'c', 'd', 'e'].map((s) => prefix + s);
	await check('createTable: 204 (the library sends return-no-content), the result names the table', async () => {
		for (const n of names) {
			const r = must(await call(svc, 'createTable', n), 'create ' + n);
			eq([r.response.statusCode, r.result.TableName], [204, n], 'status and name');
		}
	});
	await check('createTable again, other letter case: 409 TableAlreadyExists', async () => {
		wantErr(await call(svc, 'createTable', names[0].toUpperCase()), 409, 'TableAlreadyExists', 'create');
	});
	await check('createTableIfNotExists of an existing table: no error, created false', async () => {
		const r = must(await call(svc, 'createTableIfNotExists', names[0]), 'create');
		eq(r.result.created, false, 'created');
	});
	await check('doesTableExist: true for a table, false for a missing one', async () => {
		eq(must(await call(svc, 'doesTableExist', names[1]), 'exists').result.exists, true, 'existing');
		eq(must(await call(svc, 'doesTableExist', prefix + 'none'), 'missing').result.exists, false, 'missing');
	});
	await check('listTablesSegmentedWithPrefix, maxResults 2: three pages through the continuation token', async () => {
		const got = [];
		let token = null, pages = 0;
		do {
			const r = must(await call(svc, 'listTablesSegmentedWithPrefix', prefix, token, { maxResults: 2 }), 'list');
			pages++;
			ok(r.result.entries.length <= 2, `page ${pages}: ${r.result.entries.length} tables`);
			got.push(...r.result.entries);
			token = r.result.continuationToken;
			ok(pages < 10, 'more than 10 pages');
		} while (token);
		eq(pages, 3, 'pages');
		eq(got, names, 'tables');
	});
	await check('listTablesSegmented at no and full metadata lists this run\'s tables', async () => {
		for (const payloadFormat of [PayloadFormat.NO_METADATA, PayloadFormat.FULL_METADATA]) {
			const seen = new Set();
			let token = null;
			do {
				const r = must(await call(svc, 'listTablesSegmented', token, { payloadFormat }), 'list');
				r.result.entries.forEach((t) => seen.add(t));
				token = r.result.continuationToken;
			} while (token);
			ok(names.every((n) => seen.has(n)), `${payloadFormat}: missing tables`);
		}
	});
	await check('deleteTable: 204; deleteTableIfExists of a missing table: false; deleteTable of it: 404 ResourceNotFound', async () => {
		for (const n of names.slice(1)) must(await call(svc, 'deleteTable', n), 'delete ' + n);
		const r = must(await call(svc, 'deleteTable', names[0]), 'delete');
		eq(r.response.statusCode, 204, 'status');
		eq(must(await call(svc, 'deleteTableIfExists', names[0]), 'if exists').result, false, 'deleted');
		wantErr(await call(svc, 'deleteTable', names[0]), 404, 'ResourceNotFound', 'delete again');
	});
	await check('getServiceStats and Get/Set Table Service Properties (a CORS rule kept)', async () => {
		// stats are answered on the secondary endpoint only (400 on the primary, as the service):
		// the client asks its primary unless told the secondary, which a path-style endpoint names
		const secondary = azure.createTableService(connectionString(A.port).replace('/devstoreaccount1;', '/devstoreaccount1-secondary;'));
		const st = must(await call(secondary, 'getServiceStats'), 'stats');
		eq(st.result.GeoReplication?.Status, 'live', 'geo-replication');
		wantErr(await call(svc, 'getServiceStats'), 400, 'InvalidQueryParameterValue', 'stats on the primary');
		const p = must(await call(svc, 'getServiceProperties'), 'get').result;
		p.Cors = { CorsRule: [{ AllowedOrigins: ['https://node.example'], AllowedMethods: ['GET', 'MERGE'], AllowedHeaders: ['x-ms-meta-a'],
			ExposedHeaders: ['x-ms-meta-b'], MaxAgeInSeconds: 30 }] };
		must(await call(svc, 'setServiceProperties', p), 'set');
		const back = must(await call(svc, 'getServiceProperties'), 'get again').result;
		eq(back.Cors?.CorsRule?.[0]?.AllowedOrigins, ['https://node.example'], 'origins');
		eq(back.Cors?.CorsRule?.[0]?.AllowedMethods, ['GET', 'MERGE'], 'methods');
		p.Cors = {};
		must(await call(svc, 'setServiceProperties', p), 'clear');
	});
}

// ----------------------------------------------------------------------------------- entities
async function entityChecks() {
	const t = uniqueName('asent');
	await check('entities: create the table', async () => must(await call(svc, 'createTable', t), 'create'));
	const read = async (pk, rk, opts = {}) => must(await call(svc, 'retrieveEntity', t, pk, rk, opts), `read ${pk}/${rk}`).result;

	await check('insertEntity with echoContent: 201, the entity with its ETag and Timestamp', async () => {
		const r = must(await call(svc, 'insertEntity', t, entity('p', 'a', { Name: 'Ken', Age: 23 }), { echoContent: true }), 'insert');
		eq(r.response.statusCode, 201, 'status');
		eq([values(r.result).Name, values(r.result).Age], ['Ken', 23], 'values');
		ok(etagOf(r.result)?.startsWith('W/"') && etagOf(r.result) === r.response.headers.etag, `ETag ${etagOf(r.result)}`);
		ok(Math.abs(values(r.result).Timestamp - Date.now()) < 3600e3, 'Timestamp');
	});
	await check('insertEntity without echoContent: 204, Preference-Applied: return-no-content, the ETag', async () => {
		const r = must(await call(svc, 'insertEntity', t, entity('p', 'b', { Name: 'Jun' })), 'insert');
		eq(r.response.statusCode, 204, 'status');
		eq(r.response.headers['preference-applied'], 'return-no-content', 'Preference-Applied');
		ok(etagOf(r.result)?.startsWith('W/"'), 'ETag');
	});
	await check('insertEntity of an existing entity: 409 EntityAlreadyExists', async () => {
		wantErr(await call(svc, 'insertEntity', t, entity('p', 'a')), 409, 'EntityAlreadyExists', 'insert');
	});
	await check('retrieveEntity at no, minimal and full metadata: values, ETag; full: odata.id and the types', async () => {
		for (const payloadFormat of [PayloadFormat.NO_METADATA, PayloadFormat.MINIMAL_METADATA, PayloadFormat.FULL_METADATA]) {
			const r = must(await call(svc, 'retrieveEntity', t, 'p', 'a', { payloadFormat }), payloadFormat);
			eq([values(r.result).Name, values(r.result).Age], ['Ken', 23], payloadFormat);
			eq(etagOf(r.result), r.response.headers.etag, 'ETag');
			if (payloadFormat === PayloadFormat.FULL_METADATA) {
				ok(r.result['.metadata'].id?.includes("(PartitionKey='p',RowKey='a')"), 'odata.id');
				eq(r.result.Timestamp.$, 'Edm.DateTime', 'Timestamp type');
			}
		}
	});
	await check('a point query with select (TableQuery): only the selected property', async () => {
		const q = new TableQuery().select('Age').where('PartitionKey eq ? and RowKey eq ?', 'p', 'a');
		const r = must(await call(svc, 'queryEntities', t, q, null), 'query');
		eq(r.result.entries.length, 1, 'entities');
		eq([r.result.entries[0].Age?._, 'Name' in r.result.entries[0]], [23, false], 'properties');
	});
	await check('retrieveEntity of a missing entity: 404 ResourceNotFound; of a missing table: 404 TableNotFound', async () => {
		wantErr(await call(svc, 'retrieveEntity', t, 'p', 'nope'), 404, 'ResourceNotFound', 'entity');
		wantErr(await call(svc, 'retrieveEntity', uniqueName('asnone'), 'p', 'a'), 404, 'TableNotFound', 'table');
	});
	await check('replaceEntity with the ETag of a read: replaced, other properties gone, a new ETag', async () => {
		const e = await read('p', 'a');
		const old = etagOf(e);
		const r = must(await call(svc, 'replaceEntity', t, { ...entity('p', 'a', { Name: 'Ken K' }), '.metadata': { etag: old } }), 'replace');
		ok(etagOf(r.result) && etagOf(r.result) !== old, `ETag ${etagOf(r.result)} after ${old}`);
		const back = await read('p', 'a');
		eq([values(back).Name, 'Age' in back], ['Ken K', false], 'after replace');
		eq(etagOf(back), etagOf(r.result), 'ETag of the next read');
	});
	await check('replaceEntity with a stale ETag: 412 UpdateConditionNotSatisfied, nothing changes', async () => {
		const e = await read('p', 'a');
		must(await call(svc, 'mergeEntity', t, entity('p', 'a', { X: 1 })), 'a write in between');
		wantErr(await call(svc, 'replaceEntity', t, { ...entity('p', 'a', { Name: 'lost' }), '.metadata': { etag: etagOf(e) } }),
			412, 'UpdateConditionNotSatisfied', 'replace');
		eq(values(await read('p', 'a')).Name, 'Ken K', 'Name');
	});
	await check('replaceEntity without an ETag (If-Match *): replaced; of a missing entity: 404 ResourceNotFound', async () => {
		must(await call(svc, 'replaceEntity', t, entity('p', 'a', { Name: 'forced' })), 'replace');
		eq(values(await read('p', 'a')).Name, 'forced', 'Name');
		wantErr(await call(svc, 'replaceEntity', t, entity('p', 'nope', { X: 1 })), 404, 'ResourceNotFound', 'missing');
	});
	await check('mergeEntity with the ETag of a read: given properties set, the others kept', async () => {
		const e = await read('p', 'b');
		must(await call(svc, 'mergeEntity', t, { ...entity('p', 'b', { Age: 47 }), '.metadata': { etag: etagOf(e) } }), 'merge');
		const back = values(await read('p', 'b'));
		eq([back.Name, back.Age], ['Jun', 47], 'after merge');
	});
	await check('mergeEntity with a stale ETag: 412; without one: merged; of a missing entity: 404', async () => {
		const e = await read('p', 'b');
		must(await call(svc, 'mergeEntity', t, entity('p', 'b', { City: 'Oslo' })), 'merge *');
		wantErr(await call(svc, 'mergeEntity', t, { ...entity('p', 'b', { Age: 1 }), '.metadata': { etag: etagOf(e) } }),
			412, 'UpdateConditionNotSatisfied', 'stale');
		eq(values(await read('p', 'b')).City, 'Oslo', 'City');
		wantErr(await call(svc, 'mergeEntity', t, entity('p', 'nope', { X: 1 })), 404, 'ResourceNotFound', 'missing');
	});
	await check('insertOrReplaceEntity: creates, then replaces', async () => {
		must(await call(svc, 'insertOrReplaceEntity', t, entity('p', 'u1', { A: 1, B: 2 })), 'create');
		const r = must(await call(svc, 'insertOrReplaceEntity', t, entity('p', 'u1', { C: 3 })), 'replace');
		eq(r.response.statusCode, 204, 'status');
		const back = values(await read('p', 'u1'));
		eq([back.A, back.B, back.C], [undefined, undefined, 3], 'after replace');
	});
	await check('insertOrMergeEntity: creates, then merges', async () => {
		must(await call(svc, 'insertOrMergeEntity', t, entity('p', 'u2', { A: 1 })), 'create');
		must(await call(svc, 'insertOrMergeEntity', t, entity('p', 'u2', { B: 2 })), 'merge');
		const back = values(await read('p', 'u2'));
		eq([back.A, back.B], [1, 2], 'after merge');
	});
	await check('deleteEntity with a stale ETag: 412; with the read ETag: 204, gone; again: 404', async () => {
		const e = await read('p', 'u2');
		must(await call(svc, 'mergeEntity', t, entity('p', 'u2', { C: 1 })), 'a write in between');
		wantErr(await call(svc, 'deleteEntity', t, { ...entity('p', 'u2'), '.metadata': { etag: etagOf(e) } }), 412, 'UpdateConditionNotSatisfied', 'stale');
		const fresh = await read('p', 'u2');
		const r = must(await call(svc, 'deleteEntity', t, { ...entity('p', 'u2'), '.metadata': { etag: etagOf(fresh) } }), 'delete');
		eq(r.response.statusCode, 204, 'status');
		wantErr(await call(svc, 'deleteEntity', t, entity('p', 'u2')), 404, 'ResourceNotFound', 'delete again');
	});
	await check('a Timestamp sent by the client is ignored', async () => {
		must(await call(svc, 'insertEntity', t, entity('p', 'ts', { Timestamp: new Date('2000-01-02T03:04:05Z'), V: 1 })), 'insert');
		const e = await read('p', 'ts');
		ok(Math.abs(values(e).Timestamp - Date.now()) < 3600e3, `Timestamp ${values(e).Timestamp}`);
	});
	await check("keys the library escapes (quote doubled, then percent-encoded): O'Brien, space, %, #-free symbols, ü, 😀", async () => {
		for (const k of ["O'Brien", "it''s", 'a b', '100%', 'x&y=z+w', 'Grüße', 'smile😀', "'"]) {
			must(await call(svc, 'insertEntity', t, entity('k ' + k, k, { K: k })), 'insert ' + k);
			eq(values(await read('k ' + k, k)).K, k, 'read ' + k);
			must(await call(svc, 'mergeEntity', t, entity('k ' + k, k, { M: 1 })), 'merge ' + k);
			must(await call(svc, 'deleteEntity', t, entity('k ' + k, k)), 'delete ' + k);
		}
	});
	await check('empty PartitionKey and RowKey: insert, read, delete', async () => {
		must(await call(svc, 'insertEntity', t, entity('', '', { E: true })), 'insert');
		eq(values(await read('', '')).E, true, 'E');
		must(await call(svc, 'deleteEntity', t, entity('', '')), 'delete');
	});
	await check("a key with '/', '\\\\', '#', '?' or a control character: 400 InvalidInput", async () => {
		for (const k of ['a/b', 'a\\b', 'a#b', 'a?b', 'a\u0001b']) {
			wantErr(await call(svc, 'insertEntity', t, entity('p', k)), 400, 'InvalidInput', JSON.stringify(k));
		}
	});
	await check('Int32 read back and merged back stays an Int32 (the library keeps unannotated integers Int32)', async () => {
		must(await call(svc, 'insertEntity', t, entity('p', 'cnt', { Count: 41 })), 'insert');
		const e = await read('p', 'cnt');
		e.Count._ += 1;
		must(await call(svc, 'mergeEntity', t, e), 'merge back');
		const q = (f) => call(svc, 'queryEntities', t, new TableQuery().where(f), null);
		eq(must(await q("PartitionKey eq 'p' and Count eq 42"), 'Int32 literal').result.entries.length, 1, 'Int32 literal');
		eq(must(await q("PartitionKey eq 'p' and Count eq 42L"), 'Int64 literal').result.entries.length, 0, 'Int64 literal (another type)');
	});
	await check('the library refuses an entity without PartitionKey before sending (its own check)', async () => {
		const r = await call(svc, 'insertEntity', t, { RowKey: { _: 'x' } });
		ok(r.thrown && /PartitionKey/.test(r.error.message), String(r.error?.message));
	});
	await call(svc, 'deleteTable', t);
}

// -------------------------------------------------------------------------------------- types
async function typeChecks() {
	const t = uniqueName('astypes');
	const g = TableUtilities.entityGenerator;
	await check('types: create the table', async () => must(await call(svc, 'createTable', t), 'create'));
	const long = 'ab'.repeat(16384);
	const e = {
		PartitionKey: g.String('types'), RowKey: g.String('all'),
		S: g.String('héllo wörld 😀'), SEmpty: g.String(''), SLong: g.String(long), SNumeric: g.String('12345'),
		I32: g.Int32(2147483647), I32Min: g.Int32(-2147483648),
		I64: g.Int64('9007199254740993'), I64Max: g.Int64('9223372036854775807'), I64Min: g.Int64('-9223372036854775808'),
		D: g.Double(1.5), DWhole: g.Double(5), DNaN: g.Double(NaN), DInf: g.Double(Infinity), DNegInf: g.Double(-Infinity),
		DTiny: g.Double(5e-324), DHuge: g.Double(Number.MAX_VALUE),
		B: g.Boolean(true), BFalse: g.Boolean(false),
		DT: g.DateTime(new Date('2014-08-22T00:50:44.123Z')),
		// a string value keeps the 100 ns digits a JavaScript Date cannot hold
		DT7: { _: '2014-08-22T00:50:44.1234567Z', $: EdmType.DATETIME },
		DTMin: { _: '1601-01-01T00:00:00Z', $: EdmType.DATETIME }, DTMax: { _: '9999-12-31T23:59:59.9999999Z', $: EdmType.DATETIME },
		G: g.Guid('68260b3f-beab-45e2-b900-33e2b442e724'),
		Bin: g.Binary(Buffer.from([0, 1, 2, 0xfe, 0xff])), BinEmpty: g.Binary(Buffer.alloc(0)),
	};
	await check('insert an entity holding every EDM type at its extremes', async () => must(await call(svc, 'insertEntity', t, e), 'insert'));
	await check('read back (minimal metadata): every value, the annotated ones typed', async () => {
		const r = must(await call(svc, 'retrieveEntity', t, 'types', 'all'), 'read').result;
		const v = values(r);
		eq([v.S, v.SEmpty, v.SLong === long, v.SNumeric], ['héllo wörld 😀', '', true, '12345'], 'Strings');
		eq([v.I32, v.I32Min], [2147483647, -2147483648], 'Int32');
		eq([r.I64.$, v.I64, v.I64Max, v.I64Min], ['Edm.Int64', '9007199254740993', '9223372036854775807', '-9223372036854775808'], 'Int64 (strings)');
		eq([v.D, v.DWhole, Number.isNaN(v.DNaN), v.DInf, v.DNegInf, v.DTiny, v.DHuge],
			[1.5, 5, true, Infinity, -Infinity, 5e-324, Number.MAX_VALUE], 'Double');
		eq([r.DNaN.$, r.DInf.$], ['Edm.Double', 'Edm.Double'], 'special Doubles annotated');
		eq([v.B, v.BFalse], [true, false], 'Boolean');
		eq([r.DT.$, v.DT.toISOString()], ['Edm.DateTime', '2014-08-22T00:50:44.123Z'], 'DateTime');
		eq([r.G.$, v.G], ['Edm.Guid', '68260b3f-beab-45e2-b900-33e2b442e724'], 'Guid');
		eq([r.Bin.$, [...v.Bin], v.BinEmpty.length], ['Edm.Binary', [0, 1, 2, 254, 255], 0], 'Binary');
	});
	await check('DateTime text at 100 ns (a propertyResolver reading DateTimes as strings): 7 digits, trailing zeros dropped', async () => {
		const propertyResolver = (pk, rk, name, value, type) => (type === EdmType.DATETIME ? EdmType.STRING : type);
		const v = values(must(await call(svc, 'retrieveEntity', t, 'types', 'all', { propertyResolver }), 'read').result);
		eq([v.DT7, v.DTMin, v.DTMax, v.DT], ['2014-08-22T00:50:44.1234567Z', '1601-01-01T00:00:00Z', '9999-12-31T23:59:59.9999999Z',
			'2014-08-22T00:50:44.123Z'], 'DateTime texts');
	});
	await check('autoResolveProperties: Int64, DateTime, Guid and Binary typed; numbers untyped', async () => {
		const r = must(await call(svc, 'retrieveEntity', t, 'types', 'all', { autoResolveProperties: true }), 'read').result;
		eq([r.S.$, r.B.$, r.I64.$, r.DT.$, r.G.$, r.Bin.$], ['Edm.String', 'Edm.Boolean', 'Edm.Int64', 'Edm.DateTime', 'Edm.Guid', 'Edm.Binary'], 'types');
	});
	await check('each value found by a TableQuery filter of its type (the stored types)', async () => {
		const Q = TableQuery, EQ = QueryComparisons.EQUAL;
		const filters = [
			Q.stringFilter('S', EQ, 'héllo wörld 😀'), Q.stringFilter('SNumeric', EQ, '12345'),
			Q.int32Filter('I32', EQ, 2147483647), Q.int32Filter('I32Min', EQ, -2147483648),
			Q.int64Filter('I64', EQ, '9007199254740993'), Q.int64Filter('I64Max', EQ, '9223372036854775807'),
			Q.doubleFilter('D', EQ, 1.5), Q.doubleFilter('DWhole', EQ, 5), Q.doubleFilter('DHuge', QueryComparisons.GREATER_THAN, 1e308),
			Q.booleanFilter('B', EQ, true), Q.booleanFilter('BFalse', EQ, false),
			Q.dateFilter('DT', EQ, new Date('2014-08-22T00:50:44.123Z')),
			"DT7 eq datetime'2014-08-22T00:50:44.1234567Z'", "DTMax eq datetime'9999-12-31T23:59:59.9999999Z'",
			Q.guidFilter('G', EQ, '68260b3f-beab-45e2-b900-33e2b442e724'),
			Q.binaryFilter('Bin', EQ, Buffer.from([0, 1, 2, 0xfe, 0xff])),
			// an Int64 literal is another type than an Int32 value: never equal
			'not (I32 eq 2147483647L)',
		];
		for (const f of filters) {
			const q = new TableQuery().where(TableQuery.combineFilters("PartitionKey eq 'types'", TableOperators.AND, f));
			const r = must(await call(svc, 'queryEntities', t, q, null), f);
			eq(r.result.entries.length, 1, f);
		}
	});
	await check('a read entity written back whole (replace) keeps every type', async () => {
		const r = must(await call(svc, 'retrieveEntity', t, 'types', 'all', { autoResolveProperties: true }), 'read').result;
		must(await call(svc, 'replaceEntity', t, r), 'replace with its ETag');
		const q = new TableQuery().where("I64 eq 9007199254740993L and DT eq datetime'2014-08-22T00:50:44.123Z' and " +
			"G eq guid'68260b3f-beab-45e2-b900-33e2b442e724' and Bin eq X'000102feff' and I32 eq 2147483647 and DInf gt 1.0e308");
		eq(must(await call(svc, 'queryEntities', t, q, null), 'query').result.entries.length, 1, 'entities');
	});
	await check('an Int64 out of range: 400 InvalidInput; a String over 32 768 units: 400 PropertyValueTooLarge', async () => {
		wantErr(await call(svc, 'insertEntity', t, { PartitionKey: g.String('types'), RowKey: g.String('b1'), L: g.Int64('9223372036854775808') }),
			400, 'InvalidInput', 'Int64');
		wantErr(await call(svc, 'insertEntity', t, { PartitionKey: g.String('types'), RowKey: g.String('b2'), S: g.String(long + 'x') }),
			400, 'PropertyValueTooLarge', 'String');
	});
	await call(svc, 'deleteTable', t);
}

// ------------------------------------------------------------------------------------ batches
async function batchChecks() {
	const t = uniqueName('asbatch');
	await check('batches: create the table', async () => must(await call(svc, 'createTable', t), 'create'));
	const read = async (pk, rk) => (await call(svc, 'retrieveEntity', t, pk, rk)).result;
	const count = async (pk) => {
		let n = 0, token = null;
		do {
			const r = must(await call(svc, 'queryEntities', t, new TableQuery().where('PartitionKey eq ?', pk), token), 'count');
			n += r.result.entries.length;
			token = r.result.continuationToken;
		} while (token);
		return n;
	};

	await check('a batch of 100 inserts with echoContent: 202, 100 parts 201 Created with the entities', async () => {
		const b = new TableBatch();
		for (let i = 0; i < 100; i++) b.insertEntity(entity('hundred', `r${String(i).padStart(3, '0')}`, { N: i }), { echoContent: true });
		const r = must(await call(svc, 'executeBatch', t, b), 'execute');
		eq(r.response.statusCode, 202, 'status');
		eq(r.result.map((x) => x.response.statusCode), new Array(100).fill(201), 'part statuses');
		eq(values(r.result[99].entity).N, 99, 'the last entity echoed');
		ok(r.result.every((x) => etagOf(x.entity)?.startsWith('W/"')), 'ETags');
		eq(await count('hundred'), 100, 'entities');
	});
	await check('the library refuses a 101st operation, a second PartitionKey and an empty batch before sending', async () => {
		const b = new TableBatch();
		for (let i = 0; i < 100; i++) b.insertEntity(entity('x', `r${i}`));
		ok(throws(() => b.insertEntity(entity('x', 'r100'))), '101st operation accepted');
		const b2 = new TableBatch();
		b2.insertEntity(entity('x', 'a'));
		ok(throws(() => b2.insertEntity(entity('y', 'a'))), 'second PartitionKey accepted');
		ok((await call(svc, 'executeBatch', t, new TableBatch())).thrown, 'empty batch sent');
	});
	await check('every part shape in one batch: 201 insert with body, 204 insert, 204 replace/merge/upserts/delete (read ETags and *)', async () => {
		for (const rk of ['rep', 'mrg', 'del', 'repstar', 'delstar', 'upm']) must(await call(svc, 'insertEntity', t, entity('mix', rk, { Old: 1, Keep: 'k' })), 'seed');
		const tag = async (rk) => etagOf(await read('mix', rk));
		const b = new TableBatch();
		b.insertEntity(entity('mix', 'ins201', { New: 1 }), { echoContent: true });
		b.insertEntity(entity('mix', 'ins204', { New: 1 }));
		b.replaceEntity({ ...entity('mix', 'rep', { New: 2 }), '.metadata': { etag: await tag('rep') } });
		b.mergeEntity({ ...entity('mix', 'mrg', { New: 2 }), '.metadata': { etag: await tag('mrg') } });
		b.insertOrReplaceEntity(entity('mix', 'upr', { New: 3 }));
		b.insertOrMergeEntity(entity('mix', 'upm', { New: 4 }));
		b.deleteEntity({ ...entity('mix', 'del'), '.metadata': { etag: await tag('del') } });
		b.replaceEntity(entity('mix', 'repstar', { New: 5 }));
		b.deleteEntity(entity('mix', 'delstar'));
		const r = must(await call(svc, 'executeBatch', t, b), 'execute');
		eq(r.result.map((x) => x.response.statusCode), [201, 204, 204, 204, 204, 204, 204, 204, 204], 'part statuses');
		eq(values(r.result[0].entity).New, 1, 'the 201 part\'s entity');
		eq(r.result[1].response.headers['preference-applied'], 'return-no-content', 'the 204 insert\'s Preference-Applied');
		ok(r.result.filter((x, i) => ![6, 8].includes(i)).every((x) => etagOf(x.entity)?.startsWith('W/"')), 'ETags of the writes');
		const rep = values(await read('mix', 'rep'));
		eq([rep.New, 'Old' in rep], [2, false], 'replace');
		const m = values(await read('mix', 'mrg'));
		eq([m.New, m.Old], [2, 1], 'merge');
		eq(values(await read('mix', 'upr')).New, 3, 'insert or replace');
		eq([values(await read('mix', 'upm')).New, values(await read('mix', 'upm')).Keep], [4, 'k'], 'insert or merge');
		eq([await read('mix', 'del'), await read('mix', 'delstar')], [null, null], 'deleted');
		eq(values(await read('mix', 'repstar')).Old, undefined, 'replace with *');
	});
	await check('a failing batch (operation 2 inserts an existing entity): 409 EntityAlreadyExists, the message starts "2:", nothing applied', async () => {
		must(await call(svc, 'insertEntity', t, entity('fail', 'exists', { V: 1 })), 'seed');
		const b = new TableBatch();
		b.insertEntity(entity('fail', 'n0'));
		b.insertOrMergeEntity(entity('fail', 'n1'));
		b.insertEntity(entity('fail', 'exists'));
		b.insertEntity(entity('fail', 'n3'));
		const err = wantErr(await call(svc, 'executeBatch', t, b), 409, 'EntityAlreadyExists', 'execute');
		ok(err.message.startsWith('2:'), `message ${err.message.split('\n')[0]}`);
		eq(await count('fail'), 1, 'entities');
	});
	await check('a failing batch (a stale ETag on a merge): 412 UpdateConditionNotSatisfied, nothing applied', async () => {
		const e = await read('fail', 'exists');
		must(await call(svc, 'mergeEntity', t, entity('fail', 'exists', { V: 2 })), 'a write in between');
		const b = new TableBatch();
		b.insertEntity(entity('fail', 'm0'));
		b.mergeEntity({ ...entity('fail', 'exists', { V: 3 }), '.metadata': { etag: etagOf(e) } });
		wantErr(await call(svc, 'executeBatch', t, b), 412, 'UpdateConditionNotSatisfied', 'execute');
		eq(await count('fail'), 1, 'entities');
	});
	await check('a failing batch (a delete of a missing entity): 404 ResourceNotFound naming operation 1', async () => {
		const b = new TableBatch();
		b.insertEntity(entity('fail', 'd0'));
		b.deleteEntity(entity('fail', 'missing'));
		const err = wantErr(await call(svc, 'executeBatch', t, b), 404, 'ResourceNotFound', 'execute');
		ok(err.message.startsWith('1:'), `message ${err.message.split('\n')[0]}`);
	});
	await check('one entity twice in a batch: 400 InvalidDuplicateRow', async () => {
		const b = new TableBatch();
		b.insertOrMergeEntity(entity('dup', 'a'));
		b.insertOrMergeEntity(entity('dup', 'a'));
		wantErr(await call(svc, 'executeBatch', t, b), 400, 'InvalidDuplicateRow', 'execute');
	});
	await check('a batch on a missing table: 404 TableNotFound', async () => {
		const b = new TableBatch();
		b.insertEntity(entity('p', 'a'));
		wantErr(await call(svc, 'executeBatch', uniqueName('asnone'), b), 404, 'TableNotFound', 'execute');
	});
	await call(svc, 'deleteTable', t);
}

function throws(fn) {
	try { fn(); return false; } catch { return true; }
}

// ------------------------------------------------------------------------------------ queries
async function queryChecks() {
	const t = uniqueName('asquery');
	await check('queries: create the table and 30 entities in three partitions', async () => {
		must(await call(svc, 'createTable', t), 'create');
		for (const pk of ['pa', 'pb', 'pc']) {
			const b = new TableBatch();
			for (let i = 0; i < 10; i++) b.insertEntity(entity(pk, `r0${i}`, { N: i, Other: 'o' + pk }));
			must(await call(svc, 'executeBatch', t, b), 'batch ' + pk);
		}
	});
	const want = ['pa', 'pb', 'pc'].flatMap((pk) => [...Array(10).keys()].map((i) => `${pk}/r0${i}`));
	// every page of a query: keys and sizes; each continuation token resumed as the library gives it
	const pages = async (q, opts = {}, fresh = false) => {
		const keys = [], sizes = [], all = [];
		let token = null;
		do {
			const client = fresh ? azure.createTableService(connectionString(A.port)) : svc;
			const r = must(await call(client, 'queryEntities', t, q, token, opts), 'page');
			sizes.push(r.result.entries.length);
			for (const e of r.result.entries) { keys.push(`${e.PartitionKey?._}/${e.RowKey?._}`); all.push(e); }
			token = r.result.continuationToken;
			// a token kept as JSON and read back, as an application stores it between requests
			if (token && fresh) token = JSON.parse(JSON.stringify(token));
			ok(sizes.length < 50, 'more than 50 pages');
		} while (token);
		return { keys, sizes, all };
	};
	await check('top 7: five pages (7,7,7,7,2) across partitions, every entity once, in key order', async () => {
		const { keys, sizes } = await pages(new TableQuery().top(7));
		eq(sizes, [7, 7, 7, 7, 2], 'page sizes');
		eq(keys, want, 'keys');
	});
	await check('continuation tokens stored as JSON and resumed by a new TableService: the same pages', async () => {
		const { keys, sizes } = await pages(new TableQuery().top(7), {}, true);
		eq(sizes, [7, 7, 7, 7, 2], 'page sizes');
		eq(keys, want, 'keys');
	});
	await check('where PartitionKey eq ? and N ge ?: five entities', async () => {
		const { keys } = await pages(new TableQuery().where('PartitionKey eq ?', 'pb').and('N ge ?', 5));
		eq(keys, want.slice(15, 20), 'keys');
	});
	await check('where N lt 8, top 5, no metadata: 24 entities over five pages', async () => {
		const { keys, sizes } = await pages(new TableQuery().where('N lt ?', 8).top(5), { payloadFormat: PayloadFormat.NO_METADATA });
		eq([keys.length, sizes.length], [24, 5], 'entities and pages');
	});
	await check('or across partitions: in PartitionKey then RowKey order', async () => {
		const { keys } = await pages(new TableQuery().where('RowKey eq ?', 'r07').or('RowKey eq ?', 'r03'));
		eq(keys, ['pa/r03', 'pa/r07', 'pb/r03', 'pb/r07', 'pc/r03', 'pc/r07'], 'keys');
	});
	await check('a quote in a query value is doubled by the library and matches', async () => {
		must(await call(svc, 'insertEntity', t, entity('pq', "O'Brien", { N: 1 })), 'insert');
		const { keys } = await pages(new TableQuery().where('RowKey eq ?', "O'Brien"));
		eq(keys, ["pq/O'Brien"], 'keys');
		must(await call(svc, 'deleteEntity', t, entity('pq', "O'Brien")), 'delete');
	});
	await check('an inverted range: empty, not an error', async () => {
		const { keys } = await pages(new TableQuery().where('PartitionKey eq ?', 'pc').and('RowKey ge ?', 'r05').and('RowKey lt ?', 'r02'));
		eq(keys.length, 0, 'entities');
	});
	await check('select N, top 4: only N (and the ETag) on each of 8 pages', async () => {
		const { sizes, all } = await pages(new TableQuery().select('N').top(4));
		eq(sizes.length, 8, 'pages');
		for (const e of all) ok(!('Other' in e) && !('PartitionKey' in e) && typeof e.N?._ === 'number' && etagOf(e), `entity ${JSON.stringify(e)}`);
	});
	await check('a malformed filter: 400 InvalidInput', async () => {
		wantErr(await call(svc, 'queryEntities', t, new TableQuery().where('PartitionKey eq pa'), null), 400, 'InvalidInput', 'unquoted');
		wantErr(await call(svc, 'queryEntities', t, new TableQuery().where('(N eq 1) und (N eq 2)'), null), 400, 'InvalidInput', 'und');
	});
	await check('top 1001: 400 InvalidInput', async () => {
		wantErr(await call(svc, 'queryEntities', t, new TableQuery().top(1001), null), 400, 'InvalidInput', 'top');
	});
	await call(svc, 'deleteTable', t);
}

// ---------------------------------------------------------------------------------------- SAS
async function sasChecks() {
	const t = uniqueName('assas');
	const P = TableUtilities.SharedAccessPermissions;
	const hour = () => new Date(Date.now() + 3600e3);
	const tableSas = (policy) => azure.createTableServiceWithSas(endpoint(A.port), svc.generateSharedAccessSignature(t, policy));
	await check('SAS: create the table and entities in partitions a, b, c', async () => {
		must(await call(svc, 'createTable', t), 'create');
		for (const pk of ['a', 'b', 'c']) {
			for (const rk of ['1', '2', '3']) must(await call(svc, 'insertEntity', t, entity(pk, rk, { V: 1 })), 'insert');
		}
	});
	await check('table SAS raud: query, insert, merge, delete, batch', async () => {
		const s = tableSas({ AccessPolicy: { Permissions: P.QUERY + P.ADD + P.UPDATE + P.DELETE, Expiry: hour() } });
		eq(must(await call(s, 'queryEntities', t, new TableQuery(), null), 'query').result.entries.length, 9, 'entities');
		must(await call(s, 'insertEntity', t, entity('a', '4')), 'insert');
		must(await call(s, 'mergeEntity', t, entity('a', '4', { M: 1 })), 'merge');
		must(await call(s, 'deleteEntity', t, entity('a', '4')), 'delete');
		const b = new TableBatch();
		b.insertOrReplaceEntity(entity('a', '5'));
		b.deleteEntity(entity('a', '5'));
		wantErr(await call(s, 'executeBatch', t, b), 400, 'InvalidDuplicateRow', 'batch with one entity twice');
		const b2 = new TableBatch();
		b2.insertOrReplaceEntity(entity('a', '5'));
		b2.insertEntity(entity('a', '6'), { echoContent: true });
		eq(must(await call(s, 'executeBatch', t, b2), 'batch').result.map((x) => x.response.statusCode), [204, 201], 'parts');
	});
	await check('table SAS with query only: insert 403 AuthorizationPermissionMismatch; another table 403 AuthorizationFailure', async () => {
		const s = tableSas({ AccessPolicy: { Permissions: P.QUERY, Expiry: hour() } });
		must(await call(s, 'retrieveEntity', t, 'a', '1'), 'read');
		wantErr(await call(s, 'insertEntity', t, entity('a', '9')), 403, 'AuthorizationPermissionMismatch', 'insert');
		const other = uniqueName('asother');
		must(await call(svc, 'createTable', other), 'create other');
		wantErr(await call(s, 'queryEntities', other, new TableQuery(), null), 403, 'AuthorizationFailure', 'other table');
		must(await call(svc, 'deleteTable', other), 'delete other');
	});
	await check('table SAS with a key range (StartPk b, EndPk c, StartRk 2, EndRk 1): queries and pages stay inside', async () => {
		const s = tableSas({ AccessPolicy: { Permissions: P.QUERY + P.ADD + P.UPDATE, Expiry: hour(), StartPk: 'b', StartRk: '2', EndPk: 'c', EndRk: '1' } });
		const keys = [];
		let token = null;
		do {
			const r = must(await call(s, 'queryEntities', t, new TableQuery().top(1), token), 'page');
			keys.push(...r.result.entries.map((e) => `${e.PartitionKey._}/${e.RowKey._}`));
			token = r.result.continuationToken;
		} while (token && keys.length < 20);
		eq(keys, ['b/2', 'b/3', 'c/1'], 'keys in range');
		const f = must(await call(s, 'queryEntities', t, new TableQuery().where('PartitionKey eq ?', 'a'), null), 'a filter outside');
		eq(f.result.entries.length, 0, 'entities outside the range');
	});
	await check('table SAS with a key range: reads and writes outside it are 403 AuthorizationFailure, inside pass', async () => {
		const s = tableSas({ AccessPolicy: { Permissions: P.QUERY + P.ADD + P.UPDATE, Expiry: hour(), StartPk: 'b', EndPk: 'b' } });
		must(await call(s, 'retrieveEntity', t, 'b', '1'), 'read inside');
		must(await call(s, 'insertOrMergeEntity', t, entity('b', '7', { V: 7 })), 'upsert inside');
		wantErr(await call(s, 'retrieveEntity', t, 'a', '1'), 403, 'AuthorizationFailure', 'read outside');
		wantErr(await call(s, 'retrieveEntity', t, 'c', 'nope'), 403, 'AuthorizationFailure', 'read of a missing entity outside');
		wantErr(await call(s, 'insertEntity', t, entity('c', '9')), 403, 'AuthorizationFailure', 'insert outside');
		const b = new TableBatch();
		b.insertOrMergeEntity(entity('c', '8'));
		wantErr(await call(s, 'executeBatch', t, b), 403, 'AuthorizationFailure', 'batch outside');
	});
	await check('table SAS expired, not yet valid, or from another address: 403', async () => {
		let s = tableSas({ AccessPolicy: { Permissions: P.QUERY, Expiry: new Date(Date.now() - 60e3) } });
		wantErr(await call(s, 'retrieveEntity', t, 'a', '1'), 403, 'AuthenticationFailed', 'expired');
		s = tableSas({ AccessPolicy: { Permissions: P.QUERY, Start: hour(), Expiry: new Date(Date.now() + 7200e3) } });
		wantErr(await call(s, 'retrieveEntity', t, 'a', '1'), 403, 'AuthenticationFailed', 'not yet valid');
		s = tableSas({ AccessPolicy: { Permissions: P.QUERY, Expiry: hour(), IPAddressOrRange: '10.9.8.7' } });
		wantErr(await call(s, 'retrieveEntity', t, 'a', '1'), 403, 'AuthorizationSourceIPMismatch', 'another address');
		s = tableSas({ AccessPolicy: { Permissions: P.QUERY, Expiry: hour(), IPAddressOrRange: '127.0.0.0-127.0.0.255' } });
		must(await call(s, 'retrieveEntity', t, 'a', '1'), 'an address in range');
		s = tableSas({ AccessPolicy: { Permissions: P.QUERY, Expiry: hour(), Protocols: 'https' } });
		wantErr(await call(s, 'retrieveEntity', t, 'a', '1'), 403, 'AuthorizationProtocolMismatch', 'https only over http');
	});
	await check('table SAS naming a stored access policy (setTableAcl): its permissions apply; removed: 403', async () => {
		must(await call(svc, 'setTableAcl', t, { readers: { Permissions: 'r', Start: new Date(Date.now() - 60e3), Expiry: hour() } }), 'set ACL');
		const s = tableSas({ Id: 'readers' });
		must(await call(s, 'retrieveEntity', t, 'a', '1'), 'read');
		wantErr(await call(s, 'insertEntity', t, entity('a', '9')), 403, 'AuthorizationPermissionMismatch', 'insert');
		must(await call(svc, 'setTableAcl', t, {}), 'remove the policy');
		wantErr(await call(s, 'retrieveEntity', t, 'a', '1'), 403, 'AuthenticationFailed', 'read after removal');
	});
	const accountSas = (policy) => azure.createTableServiceWithSas(endpoint(A.port),
		azure.generateAccountSharedAccessSignature('devstoreaccount1', DEV_KEY, { AccessPolicy: { Services: 't', Expiry: hour(), ...policy } }));
	await check('account SAS (ss=t srt=sco, every permission): tables, entities, a batch, service properties', async () => {
		const s = accountSas({ ResourceTypes: 'sco', Permissions: 'rwdlacu' });
		const n = uniqueName('asacct');
		must(await call(s, 'createTable', n), 'create table');
		must(await call(s, 'insertEntity', n, entity('p', '1')), 'insert');
		const b = new TableBatch();
		b.insertEntity(entity('p', '2'), { echoContent: true });
		b.mergeEntity(entity('p', '1', { M: 1 }));
		must(await call(s, 'executeBatch', n, b), 'batch');
		eq(must(await call(s, 'queryEntities', n, new TableQuery(), null), 'query').result.entries.length, 2, 'entities');
		must(await call(s, 'listTablesSegmented', null), 'list tables');
		must(await call(s, 'getServiceProperties'), 'service properties');
		must(await call(s, 'deleteTable', n), 'delete table');
	});
	await check('account SAS srt=c: tables listed, entities 403 AuthorizationResourceTypeMismatch', async () => {
		const s = accountSas({ ResourceTypes: 'c', Permissions: 'rwdlacu' });
		must(await call(s, 'listTablesSegmented', null), 'list tables');
		wantErr(await call(s, 'queryEntities', t, new TableQuery(), null), 403, 'AuthorizationResourceTypeMismatch', 'query');
	});
	await check('account SAS read and list only: an insert is 403 AuthorizationPermissionMismatch', async () => {
		const s = accountSas({ ResourceTypes: 'sco', Permissions: 'rl' });
		must(await call(s, 'retrieveEntity', t, 'a', '1'), 'read');
		wantErr(await call(s, 'insertEntity', t, entity('a', '9')), 403, 'AuthorizationPermissionMismatch', 'insert');
	});
	await check('account SAS for blobs (ss=b), or expired: 403', async () => {
		wantErr(await call(accountSas({ Services: 'b', ResourceTypes: 'sco', Permissions: 'rl' }), 'listTablesSegmented', null),
			403, 'AuthorizationServiceMismatch', 'blob only');
		wantErr(await call(accountSas({ ResourceTypes: 'sco', Permissions: 'rl', Expiry: new Date(Date.now() - 60e3) }), 'listTablesSegmented', null),
			403, 'AuthenticationFailed', 'expired');
	});
	await call(svc, 'deleteTable', t);
}

// ---------------------------------------------------------------------------------------- ACL
async function aclChecks() {
	const t = uniqueName('asacl');
	await check('ACL: create the table', async () => must(await call(svc, 'createTable', t), 'create'));
	const start = new Date('2024-01-02T03:04:05Z'), expiry = new Date('2099-06-07T08:09:10Z');
	await check('setTableAcl of three policies, getTableAcl: the same, in the order set', async () => {
		const ids = { zeta: { Permissions: 'r', Start: start, Expiry: expiry }, alpha: { Permissions: 'raud', Start: start, Expiry: expiry },
			mid: { Permissions: 'd', Expiry: expiry } };
		must(await call(svc, 'setTableAcl', t, ids), 'set');
		const got = must(await call(svc, 'getTableAcl', t), 'get').result.signedIdentifiers;
		eq(Object.keys(got), ['zeta', 'alpha', 'mid'], 'order');
		for (const [id, p] of Object.entries(ids)) {
			eq([got[id].Permissions, got[id].Start?.toISOString(), got[id].Expiry?.toISOString()],
				[p.Permissions, p.Start?.toISOString(), p.Expiry.toISOString()], id);
		}
	});
	await check('an identifier with an empty access policy comes back without one', async () => {
		must(await call(svc, 'setTableAcl', t, { empty: {}, full: { Permissions: 'r', Expiry: expiry } }), 'set');
		const got = must(await call(svc, 'getTableAcl', t), 'get');
		eq(got.result.signedIdentifiers, { empty: {}, full: { Expiry: expiry, Permissions: 'r' } }, 'identifiers');
		// the library reads an empty <AccessPolicy/> and none alike: the XML on the wire
		const raw = await req({ port: Number(A.port), path: '/' + t, query: 'comp=acl' });
		ok(raw.text.includes('<SignedIdentifier><Id>empty</Id></SignedIdentifier>'), `XML ${raw.text.slice(0, 300)}`);
	});
	await check('setTableAcl with six policies: 400 InvalidXmlDocument; a bad permission letter: 400', async () => {
		const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => [id, { Permissions: 'r', Expiry: expiry }]));
		wantErr(await call(svc, 'setTableAcl', t, six), 400, 'InvalidXmlDocument', 'six');
		const r = await call(svc, 'setTableAcl', t, { x: { Permissions: 'rq', Expiry: expiry } });
		eq(r.error?.statusCode, 400, 'letter q');
	});
	await check('setTableAcl with none: getTableAcl answers none; a missing table: 404 TableNotFound', async () => {
		must(await call(svc, 'setTableAcl', t, {}), 'set');
		eq(must(await call(svc, 'getTableAcl', t), 'get').result.signedIdentifiers, {}, 'identifiers');
		wantErr(await call(svc, 'getTableAcl', uniqueName('asnone')), 404, 'TableNotFound', 'missing table');
	});
	await call(svc, 'deleteTable', t);
}
