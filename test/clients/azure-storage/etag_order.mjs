// test/clients/azure-storage/etag_order.mjs - azure-storage 2.10.7 and the entity's form (issue 27):
//   27.3  the ETag is exactly W/"datetime'<Timestamp>'" with the body's Timestamp, and the ETag the
//         library builds from a no-metadata page's Timestamp works as If-Match;
//   27.10 properties come back in the order written (the library keeps the JSON's order);
//   27.11 a point read right after the owning node crashed is 503 ServerBusy (--crash-read).
// 27.5 (PropertiesNeedValue) cannot be shown: the library refuses such an entity before sending.
import { call, check, entity, eq, etagOf, must, ok, uniqueName, wantErr } from './lib.mjs';

const etagFor = (ts) => `W/"datetime'${ts.replaceAll(':', '%3A')}'"`;

export async function etagOrderChecks(azure, svc) {
	const { TableBatch, TableQuery, TableUtilities } = azure;
	const t = uniqueName('asetag');
	await check('ETags and order: create the table', async () => must(await call(svc, 'createTable', t), 'create'));

	await check('(issue 27.3): insertEntity: the ETag is W/"datetime\'<the body\'s Timestamp>\'"', async () => {
		const r = must(await call(svc, 'insertEntity', t, entity('p', 'a', { V: 1 }), { echoContent: true }), 'insert');
		const ts = r.response.body.Timestamp;
		eq(r.response.headers.etag, etagFor(ts), 'ETag header');
		eq(r.response.body['odata.etag'], etagFor(ts), 'odata.etag');
	});
	await check('(issue 27.3): merge, replace, upserts: the ETag answered is the next read\'s Timestamp', async () => {
		for (const op of ['mergeEntity', 'replaceEntity', 'insertOrReplaceEntity', 'insertOrMergeEntity']) {
			const w = must(await call(svc, op, t, entity('p', 'a', { V: 2 })), op);
			const r = must(await call(svc, 'retrieveEntity', t, 'p', 'a'), 'read');
			eq(etagOf(w.result), etagFor(r.response.body.Timestamp), op);
		}
	});
	await check('(issue 27.3): a batch\'s part ETags are those of the entities\' Timestamps', async () => {
		const b = new TableBatch();
		b.insertEntity(entity('p', 'b1'), { echoContent: true });
		b.insertEntity(entity('p', 'b2'));
		b.mergeEntity(entity('p', 'a', { V: 3 }));
		const r = must(await call(svc, 'executeBatch', t, b), 'batch');
		for (const [i, rk] of ['b1', 'b2', 'a'].entries()) {
			const e = must(await call(svc, 'retrieveEntity', t, 'p', rk), 'read');
			eq(etagOf(r.result[i].entity), etagFor(e.response.body.Timestamp), rk);
		}
	});
	await check('(issue 27.3): a no-metadata page\'s ETag (the library builds it from Timestamp) works as If-Match', async () => {
		const q = must(await call(svc, 'queryEntities', t, new TableQuery().where('RowKey eq ?', 'a'), null,
			{ payloadFormat: TableUtilities.PayloadFormat.NO_METADATA }), 'query');
		const e = q.result.entries[0];
		// built from the Timestamp with its colons as they are: the If-Match below is the ':' spelling
		ok(/^W\/"datetime'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z'"$/.test(etagOf(e) ?? ''), `built ETag ${etagOf(e)}`);
		must(await call(svc, 'replaceEntity', t, { ...entity('p', 'a', { V: 4 }), '.metadata': { etag: etagOf(e) } }), 'replace with it');
		wantErr(await call(svc, 'replaceEntity', t, { ...entity('p', 'a', { V: 5 }), '.metadata': { etag: etagOf(e) } }),
			412, 'UpdateConditionNotSatisfied', 'the same ETag again');
	});

	await check('(issue 27.10): a read returns the properties in the order inserted', async () => {
		must(await call(svc, 'insertEntity', t, entity('o', '1', { Zeta: 1, Alpha: 2, Mid: 3 })), 'insert');
		const r = must(await call(svc, 'retrieveEntity', t, 'o', '1'), 'read');
		eq(Object.keys(r.result).filter((k) => k !== '.metadata'), ['PartitionKey', 'RowKey', 'Timestamp', 'Zeta', 'Alpha', 'Mid'], 'order');
	});
	await check('(issue 27.10): a merge keeps the order and appends new properties; a replace takes the request\'s', async () => {
		must(await call(svc, 'mergeEntity', t, entity('o', '1', { Beta: 4, Alpha: 5 })), 'merge');
		let r = must(await call(svc, 'retrieveEntity', t, 'o', '1'), 'read');
		eq(Object.keys(r.result).slice(3, -1), ['Zeta', 'Alpha', 'Mid', 'Beta'], 'after merge');
		must(await call(svc, 'replaceEntity', t, entity('o', '1', { Mid: 1, Zeta: 2 })), 'replace');
		r = must(await call(svc, 'retrieveEntity', t, 'o', '1'), 'read');
		eq(Object.keys(r.result).slice(3, -1), ['Mid', 'Zeta'], 'after replace');
	});
	await check('(issue 27.10): query pages and batch echoes keep the order too', async () => {
		const b = new TableBatch();
		b.insertEntity(entity('o', '2', { Y: 1, X: 2 }), { echoContent: true });
		const r = must(await call(svc, 'executeBatch', t, b), 'batch');
		eq(Object.keys(r.result[0].entity).slice(3, -1), ['Y', 'X'], 'batch echo');
		const q = must(await call(svc, 'queryEntities', t, new TableQuery().where('PartitionKey eq ?', 'o'), null), 'query');
		eq(q.result.entries.map((e) => Object.keys(e).slice(3, -1)), [['Mid', 'Zeta'], ['Y', 'X']], 'page');
	});
	await call(svc, 'deleteTable', t);
}

// one point read of an entity whose owning node was just killed: 503 ServerBusy, never 500
export async function crashRead(azure, svc, spec) {
	const [t, pk, rk] = spec.split(',');
	await check('(issue 27.11): a point read right after the owning node crashed: 503 ServerBusy', async () => {
		wantErr(await call(svc, 'retrieveEntity', t, pk, rk), 503, 'ServerBusy', 'read');
	});
}
