// cases/entities.mjs - the single-entity operations through TableClient: Insert, Update (replace)
// and Merge with and without If-Match, Insert Or Replace / Insert Or Merge, Delete, Get with
// $select; ETag and Timestamp rules.
import { deepEq, eq, ok, rejects, test } from '../lib/harness.mjs';

const E = { partitionKey: 'p', rowKey: 'r' };

// the custom properties of an entity read through the SDK
function props(e) {
	const out = {};
	for (const [k, v] of Object.entries(e)) {
		if (!['partitionKey', 'rowKey', 'etag', 'timestamp', 'odata.metadata'].includes(k)) out[k] = v;
	}
	return out;
}

test('entity.insert', 'Insert Entity returns an ETag, and a point read returns the entity with that ETag and a Timestamp',
	'doc: Insert Entity (201, ETag header); doc: Query Entities (point query)', async (ctx) => {
		const tc = await ctx.newTable();
		const res = await tc.createEntity({ ...E, a: 'x', n: 7 });
		ok(typeof res.etag === 'string' && res.etag.length > 0, `createEntity returns an ETag (got ${res.etag})`);
		const back = await tc.getEntity('p', 'r');
		eq(back.etag, res.etag, 'ETag of the read equals the ETag of the insert');
		eq(back.partitionKey, 'p', 'partitionKey');
		eq(back.rowKey, 'r', 'rowKey');
		ok(typeof back.timestamp === 'string' && !Number.isNaN(Date.parse(back.timestamp)), `Timestamp is a date (got ${back.timestamp})`);
		deepEq(props(back), { a: 'x', n: 7 }, 'properties');
	});

test('entity.insert-conflict', 'inserting an existing entity is 409 EntityAlreadyExists and changes nothing',
	'doc: Table Storage error codes: EntityAlreadyExists 409', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, a: 1 });
		await rejects(tc.createEntity({ ...E, a: 2 }), { status: 409, code: 'EntityAlreadyExists' }, 'second createEntity');
		eq((await tc.getEntity('p', 'r')).a, 1, 'the stored entity is unchanged');
	});

test('entity.get-missing', 'a point read of a missing entity is 404 ResourceNotFound',
	'contract §4: Retrieve of a missing entity is ResourceNotFound (the error-code page lists EntityNotFound too; the live service answers ResourceNotFound)', async (ctx) => {
		const tc = await ctx.newTable();
		await rejects(tc.getEntity('p', 'nope'), { status: 404, code: 'ResourceNotFound' }, 'getEntity');
	});

test('entity.get-select', 'getEntity with select returns only the selected properties',
	'doc: Query Entities: $select returns only the named properties; contract §5 (keys and Timestamp only when selected)', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, A: 1, B: 'two', C: true });
		const got = await tc.getEntity('p', 'r', { queryOptions: { select: ['A', 'C'] } });
		eq(got.A, 1, 'A');
		eq(got.C, true, 'C');
		ok(!('B' in got), `B is not returned (got ${JSON.stringify(Object.keys(got))})`);
		ok(typeof got.etag === 'string' && got.etag.length > 0, 'the ETag is still returned');
	});

test('entity.update-replace', 'Update Entity (Replace) removes the properties the request does not carry',
	'doc: Update Entity: replaces the entire entity', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, keep: 1, drop: 2 });
		await tc.updateEntity({ ...E, keep: 10, added: 'x' }, 'Replace');
		deepEq(props(await tc.getEntity('p', 'r')), { keep: 10, added: 'x' }, 'properties after Replace');
	});

test('entity.update-merge', 'Merge Entity keeps the properties the request does not carry',
	'doc: Merge Entity: updates the given properties, others unchanged', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, keep: 1, change: 2 });
		await tc.updateEntity({ ...E, change: 20, added: 'x' }, 'Merge');
		deepEq(props(await tc.getEntity('p', 'r')), { keep: 1, change: 20, added: 'x' }, 'properties after Merge');
	});

for (const mode of ['Replace', 'Merge']) {
	const m = mode.toLowerCase();
	test(`entity.${m}-if-match-current`, `${mode} with the current ETag succeeds and yields a new ETag`,
		`doc: ${mode === 'Replace' ? 'Update' : 'Merge'} Entity: If-Match must match the entity's ETag`, async (ctx) => {
			const tc = await ctx.newTable();
			const { etag } = await tc.createEntity({ ...E, v: 1 });
			const res = await tc.updateEntity({ ...E, v: 2 }, mode, { etag });
			ok(res.etag && res.etag !== etag, `a new ETag (old ${etag}, new ${res.etag})`);
			eq((await tc.getEntity('p', 'r')).v, 2, 'value after the conditional write');
		});

	test(`entity.${m}-if-match-stale`, `${mode} with a stale ETag is 412 UpdateConditionNotSatisfied and changes nothing`,
		'doc: Table Storage error codes: UpdateConditionNotSatisfied 412', async (ctx) => {
			const tc = await ctx.newTable();
			const { etag: old } = await tc.createEntity({ ...E, v: 1 });
			await tc.updateEntity({ ...E, v: 2 }, 'Merge');
			await rejects(tc.updateEntity({ ...E, v: 3 }, mode, { etag: old }), { status: 412, code: 'UpdateConditionNotSatisfied' }, `${mode} with the old ETag`);
			eq((await tc.getEntity('p', 'r')).v, 2, 'the entity is unchanged');
		});

	test(`entity.${m}-star-missing`, `${mode} with If-Match * on a missing entity is 404 ResourceNotFound`,
		'contract §4: Update/Merge of a missing entity is ResourceNotFound; doc: If-Match * matches any existing entity', async (ctx) => {
			const tc = await ctx.newTable();
			await rejects(tc.updateEntity({ ...E, v: 1 }, mode, { etag: '*' }), { status: 404, code: 'ResourceNotFound' }, `${mode} with *`);
			await rejects(tc.getEntity('p', 'r'), { status: 404 }, 'no entity was created');
		});

	test(`entity.${m}-star-existing`, `${mode} with If-Match * on an existing entity succeeds`,
		'doc: Update Entity / Merge Entity: If-Match * performs an unconditional update', async (ctx) => {
			const tc = await ctx.newTable();
			await tc.createEntity({ ...E, v: 1 });
			await tc.updateEntity({ ...E, v: 5 }, mode, { etag: '*' });
			eq((await tc.getEntity('p', 'r')).v, 5, 'value');
		});
}

test('entity.upsert-replace', 'Insert Or Replace creates a missing entity and replaces an existing one',
	'doc: Insert Or Replace Entity', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.upsertEntity({ ...E, a: 1, b: 2 }, 'Replace');
		deepEq(props(await tc.getEntity('p', 'r')), { a: 1, b: 2 }, 'created');
		await tc.upsertEntity({ ...E, c: 3 }, 'Replace');
		deepEq(props(await tc.getEntity('p', 'r')), { c: 3 }, 'replaced');
	});

test('entity.upsert-merge', 'Insert Or Merge creates a missing entity and merges into an existing one',
	'doc: Insert Or Merge Entity', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.upsertEntity({ ...E, a: 1, b: 2 }, 'Merge');
		deepEq(props(await tc.getEntity('p', 'r')), { a: 1, b: 2 }, 'created');
		await tc.upsertEntity({ ...E, b: 20, c: 3 }, 'Merge');
		deepEq(props(await tc.getEntity('p', 'r')), { a: 1, b: 20, c: 3 }, 'merged');
	});

test('entity.delete', 'Delete Entity without an ETag (*) removes it; deleting again is 404 ResourceNotFound',
	'doc: Delete Entity (If-Match * required by the protocol, sent by the SDK); contract §4', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E });
		await tc.deleteEntity('p', 'r');
		await rejects(tc.getEntity('p', 'r'), { status: 404, code: 'ResourceNotFound' }, 'getEntity after delete');
		await rejects(tc.deleteEntity('p', 'r'), { status: 404, code: 'ResourceNotFound' }, 'second delete');
	});

test('entity.delete-if-match', 'Delete Entity with a stale ETag is 412 and keeps the entity; with the current ETag it deletes',
	'doc: Delete Entity: If-Match; doc: error codes: UpdateConditionNotSatisfied 412', async (ctx) => {
		const tc = await ctx.newTable();
		const { etag: old } = await tc.createEntity({ ...E, v: 1 });
		const { etag: cur } = await tc.updateEntity({ ...E, v: 2 }, 'Merge');
		await rejects(tc.deleteEntity('p', 'r', { etag: old }), { status: 412, code: 'UpdateConditionNotSatisfied' }, 'delete with the old ETag');
		eq((await tc.getEntity('p', 'r')).v, 2, 'the entity is still there');
		await tc.deleteEntity('p', 'r', { etag: cur });
		await rejects(tc.getEntity('p', 'r'), { status: 404 }, 'getEntity after the conditional delete');
	});

test('entity.etag-changes-every-write', 'every write yields an ETag different from all earlier ones; Timestamp never goes back',
	'doc: Update Entity: the ETag changes with every update; contract §4 (even within the same clock tick)', async (ctx) => {
		const tc = await ctx.newTable();
		const etags = [(await tc.createEntity({ ...E, n: 0 })).etag];
		const stamps = [(await tc.getEntity('p', 'r')).timestamp];
		for (let i = 1; i <= 6; i++) {
			const op = i % 3 === 0 ? tc.upsertEntity({ ...E, n: i }, 'Replace') : tc.updateEntity({ ...E, n: i }, 'Merge');
			etags.push((await op).etag);
			stamps.push((await tc.getEntity('p', 'r')).timestamp);
		}
		eq(new Set(etags).size, etags.length, `distinct ETags (${etags.join(' ')})`);
		for (let i = 1; i < stamps.length; i++) {
			ok(ticks(stamps[i]) >= ticks(stamps[i - 1]), `Timestamp went back: ${stamps[i - 1]} → ${stamps[i]}`);
		}
	});

test('entity.timestamp-server-owned', 'a Timestamp sent by the client is ignored: the server sets it',
	'doc: Understanding the Table service data model: Timestamp is maintained by the server and cannot be modified', async (ctx) => {
		const tc = await ctx.newTable();
		const before = Date.now();
		await tc.createEntity({ ...E, Timestamp: new Date('2001-02-03T04:05:06Z'), a: 1 });
		const back = await tc.getEntity('p', 'r');
		const t = Date.parse(back.timestamp);
		ok(Math.abs(t - before) < 10 * 60_000, `Timestamp is the time of the write (got ${back.timestamp})`);
		ok(!('Timestamp' in back), 'no custom property named Timestamp');
		eq(back.a, 1, 'the other properties are stored');
	});

test('entity.delete-then-insert', 'an entity deleted and inserted again gets an ETag different from its earlier one',
	'contract §4: every write produces a new ETag, different from every earlier ETag of that entity', async (ctx) => {
		const tc = await ctx.newTable();
		const { etag: first } = await tc.createEntity({ ...E, v: 1 });
		await tc.deleteEntity('p', 'r');
		const { etag: second } = await tc.createEntity({ ...E, v: 1 });
		ok(first !== second, `ETags differ (${first} / ${second})`);
		await rejects(tc.updateEntity({ ...E, v: 2 }, 'Merge', { etag: first }), { status: 412, code: 'UpdateConditionNotSatisfied' }, 'merge with the ETag of the deleted version');
	});

export function ticks(s) {
	// '2024-01-02T03:04:05.1234567Z' → BigInt ticks-like number for ordering at 100 ns
	const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,7}))?Z$/.exec(s);
	if (!m) return BigInt(Date.parse(s)) * 10000n;
	return BigInt(Date.parse(m[1] + 'Z')) * 10000n + BigInt((m[2] ?? '').padEnd(7, '0'));
}
