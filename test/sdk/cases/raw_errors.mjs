// cases/raw_errors.mjs - error answers on the wire: the JSON error body and x-ms-error-code,
// $top out of range, bodies that are not JSON, a 5 MiB insert, a property given twice, a
// malformed If-Match.
import { eq, fail, ok, test } from '../lib/harness.mjs';
import { entityPath } from '../lib/http.mjs';

async function table(ctx) {
	return (await ctx.newTable()).tableName;
}

function shape(r, code, what) {
	eq(r.headers['x-ms-error-code'], code, `${what}: x-ms-error-code`);
	const err = r.json?.['odata.error'];
	ok(err && typeof err === 'object', `${what}: a JSON body {"odata.error": …} (got ${r.text.slice(0, 100)})`);
	eq(err.code, code, `${what}: odata.error.code`);
	ok(typeof err.message?.lang === 'string' && err.message.lang.length > 0, `${what}: odata.error.message.lang`);
	ok(typeof err.message?.value === 'string' && err.message.value.length > 0, `${what}: odata.error.message.value`);
	ok(/^application\/json/.test(r.headers['content-type'] ?? ''), `${what}: Content-Type ${r.headers['content-type']}`);
}

test('raw.error-shape', 'errors answer {"odata.error":{"code","message":{"lang","value"}}} with x-ms-error-code',
	'doc: Performing entity group transactions (sample JSON error body); contract §12', async (ctx) => {
		const t = await table(ctx);
		const nf = await ctx.raw.request({ path: entityPath(t, 'no', 'such') });
		eq(nf.status, 404, 'missing entity status');
		shape(nf, 'ResourceNotFound', 'missing entity');
		await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'r' } });
		const dup = await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'r' } });
		eq(dup.status, 409, 'duplicate insert status');
		shape(dup, 'EntityAlreadyExists', 'duplicate insert');
		const tnf = await ctx.raw.request({ path: `${t}x()` });
		eq(tnf.status, 404, 'missing table status');
		shape(tnf, 'TableNotFound', 'missing table');
	});

test('raw.error-shape-nometadata', 'an error answers the same JSON shape whatever the Accept level',
	'contract §12', async (ctx) => {
		const t = await table(ctx);
		const r = await ctx.raw.request({ path: entityPath(t, 'no', 'such'), headers: { Accept: 'application/json;odata=nometadata' } });
		eq(r.status, 404, 'status');
		shape(r, 'ResourceNotFound', 'nometadata');
	});

test('raw.top-zero', '$top=0 is 200, an empty page',
	'contract §5 and §12: $top from 0 to 1000, 0 an empty page, as the service answers Storage Explorer (docs silent on 0)', async (ctx) => {
		const t = await table(ctx);
		const r = await ctx.raw.request({ path: `${t}()`, query: '$top=0' });
		eq(r.status, 200, `status (${r.code ?? ''})`);
		eq(JSON.stringify(r.json?.value), '[]', 'no entity');
	});

test('raw.top-1001', '$top=1001 is 400 InvalidInput',
	'contract §2: $top between 1 and 1000, else InvalidInput (doc: Query timeout and pagination caps a response at 1,000 items but does not say that a larger $top is an error)', async (ctx) => {
		const t = await table(ctx);
		const r = await ctx.raw.request({ path: `${t}()`, query: '$top=1001' });
		eq(r.status, 400, 'status');
		eq(r.code, 'InvalidInput', 'code');
	});

test('raw.top-not-a-number', '$top=abc and $top=-1 are 400',
	'MS-ODATA: $top is a non-negative integer, anything else is a malformed URI; contract §2', async (ctx) => {
		const t = await table(ctx);
		for (const v of ['abc', '-1', '1.5']) {
			const r = await ctx.raw.request({ path: `${t}()`, query: `$top=${v}` });
			eq(r.status, 400, `$top=${v}: status (${r.code ?? ''})`);
		}
	});

test('raw.top-1000-ok', '$top=1000 is accepted',
	'doc: Query timeout and pagination (1,000 items a response)', async (ctx) => {
		const t = await table(ctx);
		const r = await ctx.raw.request({ path: `${t}()`, query: '$top=1000' });
		eq(r.status, 200, `status (${r.code ?? ''})`);
	});

test('raw.body-not-json', 'an insert whose body is not JSON is 400',
	'doc: Payload format for Table service operations (JSON bodies); contract §7 (bad input is a clear error)', async (ctx) => {
		const t = await table(ctx);
		for (const body of ['this is not json', '{"PartitionKey":"p","RowKey":', '[1,2,3]', '"just a string"', '']) {
			const r = await ctx.raw.request({ method: 'POST', path: t, body, headers: { 'Content-Type': 'application/json' } });
			eq(r.status, 400, `body ${JSON.stringify(body.slice(0, 20))}: status (${r.code ?? ''})`);
			ok(r.code, `body ${JSON.stringify(body.slice(0, 20))}: an error code`);
		}
		const list = await ctx.raw.request({ path: `${t}()` });
		eq(list.json?.value?.length, 0, 'nothing stored');
	});

test('raw.nested-value', 'a property whose value is a JSON object or array is 400',
	'doc: Understanding the Table service data model (only the EDM primitive types); contract §1 (no nested values)', async (ctx) => {
		const t = await table(ctx);
		for (const v of [{ a: 1 }, [1, 2]]) {
			const r = await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'r', X: v } });
			eq(r.status, 400, `X = ${JSON.stringify(v)}: status (${r.code ?? ''})`);
		}
	});

test('raw.duplicate-property', 'a property given twice in the body is 400 DuplicatePropertiesSpecified',
	'doc: Table Storage error codes: DuplicatePropertiesSpecified 400', async (ctx) => {
		const t = await table(ctx);
		const r = await ctx.raw.request({ method: 'POST', path: t, body: '{"PartitionKey":"p","RowKey":"r","a":1,"a":2}', headers: { 'Content-Type': 'application/json' } });
		eq(r.status, 400, 'status');
		eq(r.code, 'DuplicatePropertiesSpecified', 'code');
	});

test('raw.if-match-malformed', 'a malformed If-Match is 400 InvalidInput',
	"doc: Table Storage error codes: InvalidInput \"The etag value '{0}' specified in one of the request headers is not valid\"; contract §4", async (ctx) => {
		const t = await table(ctx);
		await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'r', v: 1 } });
		const r = await ctx.raw.request({ method: 'MERGE', path: entityPath(t, 'p', 'r'), headers: { 'If-Match': 'not-an-etag' }, body: { PartitionKey: 'p', RowKey: 'r', v: 2 } });
		eq(r.status, 400, `status (${r.code ?? ''})`);
		eq(r.code, 'InvalidInput', 'code');
		const g = await ctx.raw.request({ path: entityPath(t, 'p', 'r') });
		eq(g.json?.v, 1, 'the entity is unchanged');
	});

test('raw.body-5mib', 'a 5 MiB insert body is answered 413 RequestBodyTooLarge, and the client receives the answer',
	'contract §12: a body over 4 MiB gets 413 RequestBodyTooLarge and the 413 must reach the client (doc: Common REST API error codes RequestBodyTooLarge 413)', async (ctx) => {
		const t = await table(ctx);
		const body = JSON.stringify({ PartitionKey: 'p', RowKey: 'r', s: 'x'.repeat(5 * 1024 * 1024) });
		let r;
		try {
			r = await ctx.raw.request({ method: 'POST', path: t, body, headers: { 'Content-Type': 'application/json' }, agent: false });
		} catch (e) {
			fail(`no answer received: ${e.code ?? ''} ${e.message}`);
		}
		eq(r.status, 413, `status (${r.code ?? ''})`);
		eq(r.code, 'RequestBodyTooLarge', 'code');
	});

test('raw.keys-body-url-mismatch', 'an update whose body keys differ from the URL keys is refused (400) or writes only the URL\'s entity',
	'docs silent; contract §7 (bad input is a clear error, never a write to another entity)', async (ctx) => {
		const t = await table(ctx);
		await ctx.raw.request({ method: 'POST', path: t, body: { PartitionKey: 'p', RowKey: 'r', v: 1 } });
		const r = await ctx.raw.request({ method: 'PUT', path: entityPath(t, 'p', 'r'), headers: { 'If-Match': '*' }, body: { PartitionKey: 'p', RowKey: 'other', v: 2 } });
		if (r.status === 204) {
			const other = await ctx.raw.request({ path: entityPath(t, 'p', 'other') });
			if (other.status === 200) fail('the PUT to (p, r) wrote the entity (p, other)');
			const same = await ctx.raw.request({ path: entityPath(t, 'p', 'r') });
			eq(same.json?.RowKey, 'r', 'the URL keys won');
			return;
		}
		eq(r.status, 400, `status (${r.code ?? ''})`);
	});
