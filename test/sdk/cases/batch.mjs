// cases/batch.mjs - entity group transactions through TableClient.submitTransaction: 100 mixed
// operations, the failing operation's index, all-or-nothing, more than 100 operations, a
// duplicate row, an oversized body.
import { deepEq, eq, fail, ok, rejects, test } from '../lib/harness.mjs';

const EGT = 'doc: Performing entity group transactions';
const rk = (i) => `r${String(i).padStart(3, '0')}`;

async function rowKeys(ctx, tc) {
	return (await ctx.all(tc)).map((e) => e.rowKey);
}

// the index the service put in front of the error message ("37:…"), or undefined
function indexOf(info) {
	const m = /^(\d+):/.exec(info.message ?? '');
	return m ? Number(m[1]) : undefined;
}

test('batch.mixed-100', '100 mixed operations (create, upsert, update with ETag, delete) commit together, each with its ETag',
	`${EGT}: up to 100 operations of Insert, Update, Merge, Delete, Insert Or Replace, Insert Or Merge in one change set`, async (ctx) => {
		const tc = await ctx.newTable();
		await ctx.load(tc, Array.from({ length: 60 }, (_, i) => ({ partitionKey: 'p', rowKey: rk(i), v: i, keep: 'k' })));
		const etags = new Map((await ctx.all(tc)).map((e) => [e.rowKey, e.etag]));
		const ops = [];
		for (let i = 100; i < 130; i++) ops.push(['create', { partitionKey: 'p', rowKey: rk(i), v: i }]); // 30 creates
		for (let i = 0; i < 10; i++) ops.push(['upsert', { partitionKey: 'p', rowKey: rk(i), v: -i }, 'Merge']); // 10 upsert-merge existing
		for (let i = 10; i < 20; i++) ops.push(['upsert', { partitionKey: 'p', rowKey: rk(i), v: -i }, 'Replace']); // 10 upsert-replace existing
		for (let i = 140; i < 150; i++) ops.push(['upsert', { partitionKey: 'p', rowKey: rk(i), v: i }, i % 2 ? 'Merge' : 'Replace']); // 10 upserts creating
		for (let i = 20; i < 30; i++) ops.push(['update', { partitionKey: 'p', rowKey: rk(i), v: -i }, 'Merge', { etag: etags.get(rk(i)) }]); // 10 merge with ETag
		for (let i = 30; i < 40; i++) ops.push(['update', { partitionKey: 'p', rowKey: rk(i), v: -i }, 'Replace', { etag: etags.get(rk(i)) }]); // 10 replace with ETag
		// 20 deletes (submitTransaction always sends If-Match: * for a delete; raw.batch-delete-if-match sends an ETag)
		for (let i = 40; i < 60; i++) ops.push(['delete', { partitionKey: 'p', rowKey: rk(i) }]);
		eq(ops.length, 100, 'operations');
		const res = await tc.submitTransaction(ops);
		eq(res.status, 202, 'batch status');
		eq(res.subResponses.length, 100, 'one response per operation');
		const bad = res.subResponses.map((s, i) => [i, s.status]).filter(([, s]) => s < 200 || s >= 300);
		deepEq(bad, [], 'operations that did not succeed');
		const state = new Map((await ctx.all(tc)).map((e) => [e.rowKey, e]));
		const want = [];
		for (let i = 0; i < 40; i++) want.push(rk(i));
		for (let i = 100; i < 130; i++) want.push(rk(i));
		for (let i = 140; i < 150; i++) want.push(rk(i));
		deepEq([...state.keys()], want.sort(), 'RowKeys after the batch');
		eq(state.get(rk(3)).keep, 'k', 'upsert Merge kept the other property');
		ok(!('keep' in state.get(rk(13))), 'upsert Replace dropped the other property');
		eq(state.get(rk(23)).keep, 'k', 'update Merge kept the other property');
		ok(!('keep' in state.get(rk(33))), 'update Replace dropped the other property');
		eq(state.get(rk(33)).v, -33, 'update Replace value');
		// every non-delete operation reports the entity's new ETag
		for (let k = 0; k < 80; k++) {
			const row = ops[k][1].rowKey;
			const sub = res.subResponses[k];
			ok(sub.etag, `operation ${k} (${ops[k][0]} ${row}) reports an ETag`);
			eq(sub.etag, state.get(row).etag, `operation ${k}: reported ETag is the stored one`);
		}
	});

async function failingBatch(ctx, { index, bad, setup }) {
	const tc = await ctx.newTable();
	await ctx.load(tc, [{ partitionKey: 'p', rowKey: 'exists', v: 1 }]);
	const before = await ctx.all(tc);
	if (setup) await setup(tc);
	const ops = [];
	for (let i = 0; i < 100; i++) ops.push(i === index ? bad : ['create', { partitionKey: 'p', rowKey: rk(i), v: i }]);
	return { tc, before, ops };
}

test('batch.fail-conflict-index', 'a failing batch reports the failing operation\'s index and code, and applies nothing',
	`${EGT}: an operation fails → the change set fails, nothing is applied, the error message starts with the operation's index; doc: error codes EntityAlreadyExists 409`, async (ctx) => {
		const { tc, before, ops } = await failingBatch(ctx, { index: 37, bad: ['create', { partitionKey: 'p', rowKey: 'exists', v: 2 }] });
		const info = await rejects(tc.submitTransaction(ops), { status: 409, code: 'EntityAlreadyExists' }, 'submitTransaction');
		eq(indexOf(info), 37, `index in the message "${info.message.split('\n')[0]}"`);
		deepEq(await ctx.all(tc), before, 'the table after the failed batch');
	});

test('batch.fail-notfound-index', 'an update of a missing entity fails the batch with ResourceNotFound at its index',
	`${EGT}; contract §6 (index of the failing operation, 0-based)`, async (ctx) => {
		const { tc, before, ops } = await failingBatch(ctx, { index: 5, bad: ['update', { partitionKey: 'p', rowKey: 'missing', v: 2 }, 'Merge'] });
		const info = await rejects(tc.submitTransaction(ops), { status: 404, code: 'ResourceNotFound' }, 'submitTransaction');
		eq(indexOf(info), 5, `index in the message "${info.message.split('\n')[0]}"`);
		deepEq(await ctx.all(tc), before, 'the table after the failed batch');
	});

test('batch.fail-last-index', 'a failure in the last of 100 operations reports index 99',
	`${EGT}; contract §6`, async (ctx) => {
		const { tc, before, ops } = await failingBatch(ctx, { index: 99, bad: ['create', { partitionKey: 'p', rowKey: 'exists' }] });
		const info = await rejects(tc.submitTransaction(ops), { status: 409, code: 'EntityAlreadyExists' }, 'submitTransaction');
		eq(indexOf(info), 99, `index in the message "${info.message.split('\n')[0]}"`);
		deepEq(await ctx.all(tc), before, 'the table after the failed batch');
	});

test('batch.fail-precondition', 'an update with a stale ETag fails the batch with 412 and applies nothing',
	`${EGT}; doc: error codes UpdateConditionNotSatisfied 412 (contract §12: the service omits the index for a 412, so an index, if given, must be right)`, async (ctx) => {
		let stale;
		const { tc, before, ops } = await failingBatch(ctx, {
			index: 3, bad: null,
			setup: async (t) => {
				stale = (await t.getEntity('p', 'exists')).etag;
			},
		});
		await tc.updateEntity({ partitionKey: 'p', rowKey: 'exists', v: 5 }, 'Merge');
		const after = await ctx.all(tc);
		ops[3] = ['update', { partitionKey: 'p', rowKey: 'exists', v: 9 }, 'Merge', { etag: stale }];
		const info = await rejects(tc.submitTransaction(ops), { status: 412, code: 'UpdateConditionNotSatisfied' }, 'submitTransaction');
		const idx = indexOf(info);
		ok(idx === undefined || idx === 3, `index in the message, if any, is 3 (got ${idx})`);
		ok(before.length === 1, 'fixture');
		deepEq(await ctx.all(tc), after, 'the table after the failed batch');
	});

test('batch.over-100', 'a batch of 101 operations is 400 InvalidInput and applies nothing',
	`${EGT}: at most 100 operations; doc: error codes: InvalidInput "The batch request operation exceeds the maximum 100 changes per change set"`, async (ctx) => {
		const tc = await ctx.newTable();
		const ops = Array.from({ length: 101 }, (_, i) => ['create', { partitionKey: 'p', rowKey: rk(i) }]);
		await rejects(tc.submitTransaction(ops), { status: 400, code: 'InvalidInput' }, 'submitTransaction of 101');
		deepEq(await rowKeys(ctx, tc), [], 'entities after the refused batch');
	});

test('batch.duplicate-row', 'two operations on one entity in a batch are 400 InvalidDuplicateRow',
	`${EGT}: an entity can appear only once in the transaction; doc: error codes InvalidDuplicateRow 400`, async (ctx) => {
		const tc = await ctx.newTable();
		await rejects(tc.submitTransaction([
			['create', { partitionKey: 'p', rowKey: 'a' }],
			['create', { partitionKey: 'p', rowKey: 'b' }],
			['upsert', { partitionKey: 'p', rowKey: 'a', v: 1 }, 'Merge'],
		]), { status: 400, code: 'InvalidDuplicateRow' }, 'submitTransaction');
		deepEq(await rowKeys(ctx, tc), [], 'entities after the refused batch');
	});

test('batch.sdk-refuses-two-partitions', 'the SDK itself refuses a transaction over two partitions (the service\'s answer is raw.batch-cross-partition)',
	`${EGT}: all entities in one transaction must have the same PartitionKey`, async (ctx) => {
		const tc = await ctx.newTable();
		try {
			await tc.submitTransaction([['create', { partitionKey: 'p1', rowKey: 'a' }], ['create', { partitionKey: 'p2', rowKey: 'b' }]]);
		} catch (e) {
			ok(!e.statusCode, `refused on the client, before sending (got status ${e.statusCode})`);
			deepEq(await rowKeys(ctx, tc), [], 'nothing written');
			return;
		}
		fail('the SDK sent a transaction over two partitions and it succeeded');
	});

test('batch.body-over-4mib', 'a batch body over 4 MiB is 413 RequestBodyTooLarge and applies nothing',
	`${EGT}: total payload at most 4 MiB; doc: Common REST API error codes: RequestBodyTooLarge 413`, async (ctx) => {
		const tc = await ctx.newTable();
		const big = 'x'.repeat(50_000);
		const ops = Array.from({ length: 100 }, (_, i) => ['create', { partitionKey: 'p', rowKey: rk(i), big }]);
		await rejects(tc.submitTransaction(ops), { status: 413, code: 'RequestBodyTooLarge' }, 'submitTransaction of about 5 MB');
		deepEq(await rowKeys(ctx, tc), [], 'entities after the refused batch');
	});

test('batch.limit-inside', 'an invalid entity inside a batch fails it with that entity\'s error and index',
	`${EGT}: all entities are subject to the data-model limits; contract §6 (index and cause)`, async (ctx) => {
		const tc = await ctx.newTable();
		const ops = [
			['create', { partitionKey: 'p', rowKey: 'a' }],
			['create', { partitionKey: 'p', rowKey: 'b', s: 'x'.repeat(32_769) }],
			['create', { partitionKey: 'p', rowKey: 'c' }],
		];
		const info = await rejects(tc.submitTransaction(ops), { status: 400, code: 'PropertyValueTooLarge' }, 'submitTransaction');
		eq(indexOf(info), 1, `index in the message "${info.message.split('\n')[0]}"`);
		deepEq(await rowKeys(ctx, tc), [], 'entities after the failed batch');
	});

test('batch.read-your-batch', 'after a successful batch every entity reads back with the ETag the batch reported',
	`${EGT}: the response holds one part per operation with its ETag`, async (ctx) => {
		const tc = await ctx.newTable();
		const res = await tc.submitTransaction(Array.from({ length: 5 }, (_, i) => ['create', { partitionKey: 'p', rowKey: rk(i), v: i }]));
		for (let i = 0; i < 5; i++) {
			const e = await tc.getEntity('p', rk(i));
			eq(res.subResponses[i].etag, e.etag, `ETag of ${rk(i)}`);
			eq(e.v, i, `value of ${rk(i)}`);
		}
		eq(res.getResponseForEntity(rk(2))?.rowKey, rk(2), 'getResponseForEntity finds a create by its RowKey (from Location / DataServiceId)');
	});
