// cases/raw_batch.mjs - $batch on the wire: the response format, LF-only line endings, malformed
// multipart bodies, the failing index, two partitions, 101 operations, 4 MiB, MERGE/PATCH and
// If-Match inside a changeset, request lines naming another host.
import { deepEq, eq, fail, ok, test } from '../lib/harness.mjs';
import { entityPath } from '../lib/http.mjs';
import { batchBody, parseBatchResponse } from '../lib/batch.mjs';

const EGT = 'doc: Performing entity group transactions';

async function table(ctx) {
	return (await ctx.newTable()).tableName;
}

async function send(ctx, ops, opts = {}) {
	const { body, contentType } = opts.raw ?? batchBody(ops, opts);
	const r = await ctx.raw.request({
		method: 'POST', path: '$batch', body: opts.mangle ? opts.mangle(body) : body,
		headers: { 'Content-Type': opts.contentType ?? contentType, Accept: 'application/json;odata=minimalmetadata' },
		agent: opts.agent,
	});
	r.batch = r.status === 202 ? parseBatchResponse(r.headers['content-type'], r.text) : undefined;
	return r;
}

const insert = (ctx, t, e, headers = {}) => ({ method: 'POST', url: ctx.raw.absolute(t), headers: { Prefer: 'return-no-content', ...headers }, body: e });
const op = (ctx, method, t, pk, rk, body, headers = {}) => ({ method, url: ctx.raw.absolute(entityPath(t, pk, rk)), headers, body });

// What failed: the top-level status, or the failing part of a 202 answer.
function outcome(r) {
	if (r.status !== 202) return { status: r.status, code: r.code, message: r.message ?? '' };
	if (r.batch && r.batch.parts.length === 0) return { status: 202, code: undefined, message: '', note: `no operation response (${r.batch.error ?? 'empty'})` };
	const bad = r.batch?.parts.find((p) => p.status >= 400);
	if (!bad) return { status: 202, code: undefined, message: '' };
	const err = bad.json?.['odata.error'];
	return { status: bad.status, code: err?.code ?? bad.headers['x-ms-error-code'], message: err?.message?.value ?? '' };
}

// a 202 answer must be well-formed multipart (every part an HTTP response)
function wellFormed(r) {
	if (r.status === 202) ok(r.batch?.ok, `the multipart answer is well-formed (${r.batch?.error})`);
}

async function rowKeys(ctx, t) {
	const r = await ctx.raw.request({ path: `${t}()` });
	return (r.json?.value ?? []).map((e) => e.RowKey);
}

test('raw.batch-response-format', 'a $batch answers 202 multipart/mixed with one part per operation, each with its status and ETag',
	`${EGT}: the response is a batchresponse holding a changesetresponse with one part per operation`, async (ctx) => {
		const t = await table(ctx);
		await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'old', v: 1 } });
		const r = await send(ctx, [
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'a', v: 1 }),
			op(ctx, 'MERGE', t, 'p', 'old', { PartitionKey: 'p', RowKey: 'old', w: 2 }, { 'If-Match': '*' }),
			op(ctx, 'PUT', t, 'p', 'b', { PartitionKey: 'p', RowKey: 'b', v: 3 }),
		]);
		eq(r.status, 202, `status (${r.code ?? ''} ${r.text.slice(0, 100)})`);
		ok(/^multipart\/mixed;\s*boundary=batchresponse_/i.test(r.headers['content-type'] ?? ''), `Content-Type (${r.headers['content-type']})`);
		ok(r.batch.ok, `parsed (${r.batch.error ?? ''})`);
		ok(/--changesetresponse_/.test(r.text), 'a changesetresponse part');
		deepEq(r.batch.parts.map((p) => p.status), [204, 204, 204], 'part statuses');
		ok(r.batch.parts.every((p) => p.headers.etag), 'every part carries an ETag');
		deepEq(await rowKeys(ctx, t), ['a', 'b', 'old'], 'entities after the batch');
	});

test('raw.batch-insert-part-headers', 'an insert part answers Location and DataServiceId naming the entity (201 with content, 204 without)',
	`${EGT} (response example); contract §12 (the JS SDK reads the RowKey from these)`, async (ctx) => {
		const t = await table(ctx);
		const r = await send(ctx, [
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'x1', v: 1 }),
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'x2', v: 2 }, { Prefer: 'return-content' }),
		]);
		eq(r.status, 202, 'status');
		deepEq(r.batch.parts.map((p) => p.status), [204, 201], 'part statuses');
		const [a, b] = r.batch.parts;
		ok(decodeURIComponent(a.headers.location ?? '').endsWith(`${t}(PartitionKey='p',RowKey='x1')`), `Location of the 204 part (${a.headers.location})`);
		ok(decodeURIComponent(a.headers.dataserviceid ?? '').endsWith(`${t}(PartitionKey='p',RowKey='x1')`), `DataServiceId of the 204 part (${a.headers.dataserviceid})`);
		ok(decodeURIComponent(b.headers.location ?? '').endsWith(`${t}(PartitionKey='p',RowKey='x2')`), `Location of the 201 part (${b.headers.location})`);
		eq(b.json?.v, 2, 'the 201 part echoes the entity');
	});

test('raw.batch-lf-only', 'a $batch body with LF-only line endings works',
	`${EGT}; contract §12: LF-only line endings occur and must work`, async (ctx) => {
		const t = await table(ctx);
		const r = await send(ctx, [insert(ctx, t, { PartitionKey: 'p', RowKey: 'a' }), insert(ctx, t, { PartitionKey: 'p', RowKey: 'b' })], { eol: '\n' });
		eq(r.status, 202, `status (${r.code ?? ''} ${r.message ?? ''})`);
		deepEq(r.batch.parts.map((p) => p.status), [204, 204], 'part statuses');
		deepEq(await rowKeys(ctx, t), ['a', 'b'], 'entities');
	});

test('raw.batch-patch-and-if-match', 'PATCH, MERGE and DELETE with a specific ETag work inside a changeset',
	`${EGT}: Merge Entity and Delete Entity with If-Match inside a change set; contract §12 (PATCH inside changesets)`, async (ctx) => {
		const t = await table(ctx);
		const e1 = await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'a', v: 1 } });
		const e2 = await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'b', v: 1 } });
		const e3 = await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'c', v: 1 } });
		const r = await send(ctx, [
			op(ctx, 'PATCH', t, 'p', 'a', { PartitionKey: 'p', RowKey: 'a', w: 2 }, { 'If-Match': e1.headers.etag }),
			op(ctx, 'MERGE', t, 'p', 'b', { PartitionKey: 'p', RowKey: 'b', w: 2 }, { 'If-Match': e2.headers.etag }),
			op(ctx, 'DELETE', t, 'p', 'c', undefined, { 'If-Match': e3.headers.etag }),
		]);
		eq(r.status, 202, 'status');
		deepEq(r.batch.parts.map((p) => p.status), [204, 204, 204], `part statuses (${outcome(r).code ?? ''})`);
		deepEq(await rowKeys(ctx, t), ['a', 'b'], 'entities');
	});

test('raw.batch-delete-stale-etag', 'a DELETE with a stale ETag in a changeset fails it with 412 and nothing applies',
	`${EGT}; doc: error codes UpdateConditionNotSatisfied 412`, async (ctx) => {
		const t = await table(ctx);
		const e1 = await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'a', v: 1 } });
		await ctx.raw.request({ method: 'MERGE', path: entityPath(t, 'p', 'a'), headers: { 'If-Match': '*' }, body: { PartitionKey: 'p', RowKey: 'a', v: 2 } });
		const r = await send(ctx, [insert(ctx, t, { PartitionKey: 'p', RowKey: 'b' }), op(ctx, 'DELETE', t, 'p', 'a', undefined, { 'If-Match': e1.headers.etag })]);
		const o = outcome(r);
		eq(o.status, 412, `failure status (${o.code ?? ''})`);
		eq(o.code, 'UpdateConditionNotSatisfied', 'code');
		deepEq(await rowKeys(ctx, t), ['a'], 'entities');
		wellFormed(r);
	});

test('raw.batch-failing-index', 'the error of a failed changeset names the 0-based index of the failing operation',
	`${EGT}: the error message value starts with the index of the failing operation ("1:One of the request inputs is not valid.")`, async (ctx) => {
		const t = await table(ctx);
		await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'dup' } });
		const r = await send(ctx, [
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'a' }),
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'b' }),
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'dup' }),
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'c' }),
		]);
		const o = outcome(r);
		eq(o.status, 409, `failure status (${o.code ?? ''})`);
		eq(o.code, 'EntityAlreadyExists', 'code');
		ok(/^2:/.test(o.message), `message starts with "2:" ("${o.message.split('\n')[0]}")`);
		if (r.status === 202) eq(r.batch.parts.length, 1, 'a failed changeset answers one part');
		deepEq(await rowKeys(ctx, t), ['dup'], 'entities');
		wellFormed(r);
	});

test('raw.batch-cross-partition', 'a changeset over two PartitionKeys is 400 CommandsInBatchActOnDifferentPartitions and applies nothing',
	`${EGT}: all entities must have the same PartitionKey; contract §2 (CommandsInBatchActOnDifferentPartitions)`, async (ctx) => {
		const t = await table(ctx);
		const r = await send(ctx, [insert(ctx, t, { PartitionKey: 'p1', RowKey: 'a' }), insert(ctx, t, { PartitionKey: 'p2', RowKey: 'b' })]);
		const o = outcome(r);
		eq(o.status, 400, `failure status (${o.code ?? ''}; entities now ${JSON.stringify(await rowKeys(ctx, t))})`);
		eq(o.code, 'CommandsInBatchActOnDifferentPartitions', 'code');
		deepEq(await rowKeys(ctx, t), [], 'entities');
		wellFormed(r);
	});

test('raw.batch-duplicate-row', 'a changeset naming one entity twice is 400 InvalidDuplicateRow',
	`${EGT}: an entity can appear only once; doc: error codes InvalidDuplicateRow`, async (ctx) => {
		const t = await table(ctx);
		const r = await send(ctx, [
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'a' }),
			op(ctx, 'DELETE', t, 'p', 'a', undefined, { 'If-Match': '*' }),
		]);
		const o = outcome(r);
		eq(o.status, 400, `failure status (${o.code ?? ''})`);
		eq(o.code, 'InvalidDuplicateRow', 'code');
		deepEq(await rowKeys(ctx, t), [], 'entities');
		wellFormed(r);
	});

test('raw.batch-101', 'a changeset of 101 operations is 400 InvalidInput and applies nothing',
	`${EGT}: at most 100 operations in a change set; doc: error codes InvalidInput; contract §12 (the service reports index 99)`, async (ctx) => {
		const t = await table(ctx);
		const ops = Array.from({ length: 101 }, (_, i) => insert(ctx, t, { PartitionKey: 'p', RowKey: `r${i}` }));
		const r = await send(ctx, ops);
		const o = outcome(r);
		eq(o.status, 400, `failure status (${o.code ?? ''})`);
		eq(o.code, 'InvalidInput', 'code');
		deepEq(await rowKeys(ctx, t), [], 'entities');
		ok(/^99:/.test(o.message), `message starts with "99:" as the service's does (contract §12; "${o.message.split('\n')[0]}")`);
		wellFormed(r);
	});

test('raw.batch-other-host', 'the host in a part\'s request line is ignored',
	'contract §12: each part has a request line holding an absolute URL (ignore its host)', async (ctx) => {
		const t = await table(ctx);
		const url = `http://example.invalid:1234${ctx.raw.basePath}/${t}`;
		const r = await send(ctx, [{ method: 'POST', url, headers: { Prefer: 'return-no-content' }, body: { PartitionKey: 'p', RowKey: 'a' } }]);
		eq(r.status, 202, `status (${r.code ?? ''})`);
		eq(outcome(r).status, 202, `the operation (${outcome(r).code ?? ''})`);
		deepEq(await rowKeys(ctx, t), ['a'], 'entities');
		wellFormed(r);
	});

async function malformed(ctx, label, mangle, opts = {}) {
	const t = await table(ctx);
	const r = await send(ctx, [insert(ctx, t, { PartitionKey: 'p', RowKey: 'a' }), insert(ctx, t, { PartitionKey: 'p', RowKey: 'b' })], { mangle, ...opts });
	const o = outcome(r);
	const after = await rowKeys(ctx, t);
	const applied = after.length ? `; applied: ${JSON.stringify(after)}` : '; nothing applied';
	if (o.status < 400 || o.status >= 500) fail(`${label}: expected a 4xx answer, got ${r.status}${r.status === 202 ? ` with ${o.note ?? `parts ${r.batch?.parts.map((p) => p.status)}`}` : ''} ${o.code ?? ''}${applied}`);
	eq(o.status, 400, `${label}: status (${o.code ?? ''}${applied})`);
	deepEq(after, [], `${label}: nothing applied`);
}

test('raw.batch-missing-boundary', 'a $batch whose Content-Type has no boundary is 400 and applies nothing',
	`${EGT}: the body is multipart/mixed with a boundary; contract §7 (bad input never leaves a partial write)`, async (ctx) => {
		await malformed(ctx, 'no boundary', undefined, { contentType: 'multipart/mixed' });
	});

test('raw.batch-wrong-boundary', 'a $batch whose boundary does not occur in the body is 400',
	`${EGT}; contract §7`, async (ctx) => {
		await malformed(ctx, 'wrong boundary', undefined, { contentType: 'multipart/mixed; boundary=batch_nothere' });
	});

test('raw.batch-truncated', 'a truncated $batch body is 400 and applies nothing',
	`${EGT}; contract §7 (bad input never leaves a partial write)`, async (ctx) => {
		await malformed(ctx, 'truncated', (b) => b.slice(0, Math.floor(b.length * 0.7)));
	});

test('raw.batch-no-request-line', 'a changeset part without a request line is 400 and applies nothing',
	`${EGT}: each part is an HTTP request; contract §7`, async (ctx) => {
		await malformed(ctx, 'no request line', (b) => {
			const i = b.lastIndexOf('POST http');
			const j = b.indexOf('\n', i);
			return b.slice(0, i) + b.slice(j + 1);
		});
	});

test('raw.batch-bad-json-part', 'a changeset part whose body is not JSON fails the changeset with 400 and its index',
	`${EGT}; contract §6 (index of the failing operation)`, async (ctx) => {
		const t = await table(ctx);
		const r = await send(ctx, [
			insert(ctx, t, { PartitionKey: 'p', RowKey: 'a' }),
			{ method: 'POST', url: ctx.raw.absolute(t), headers: { 'Content-Type': 'application/json', Prefer: 'return-no-content' }, body: '{"PartitionKey":"p","RowKey":' },
		]);
		const o = outcome(r);
		eq(o.status, 400, `failure status (${o.code ?? ''}; entities now ${JSON.stringify(await rowKeys(ctx, t))})`);
		ok(/^1:/.test(o.message), `message starts with "1:" ("${o.message.split('\n')[0]}")`);
		deepEq(await rowKeys(ctx, t), [], 'entities');
		wellFormed(r);
	});

test('raw.batch-5mib', 'a 5 MiB $batch is answered 413 RequestBodyTooLarge, and the client receives the answer',
	`${EGT}: payload at most 4 MiB; doc: Common REST API error codes RequestBodyTooLarge 413; contract §12 (the 413 must reach the client)`, async (ctx) => {
		const t = await table(ctx);
		const big = 'x'.repeat(52_000);
		const ops = Array.from({ length: 100 }, (_, i) => insert(ctx, t, { PartitionKey: 'p', RowKey: `r${i}`, big }));
		let r;
		try {
			r = await send(ctx, ops, { agent: false });
		} catch (e) {
			fail(`no answer received: ${e.code ?? ''} ${e.message}`);
		}
		eq(r.status, 413, `status (${r.code ?? ''})`);
		eq(r.code, 'RequestBodyTooLarge', 'code');
		deepEq(await rowKeys(ctx, t), [], 'entities');
	});
