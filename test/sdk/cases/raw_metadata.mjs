// cases/raw_metadata.mjs - the three JSON metadata levels, chosen by Accept or by $format, on a
// point read, a query and Query Tables; Atom refused with 415.
import { eq, ok, test } from '../lib/harness.mjs';
import { FULL, MINIMAL, NOMETA, entityPath } from '../lib/http.mjs';

const PF = 'doc: Payload format for Table service operations';

const BODY = {
	PartitionKey: 'p', RowKey: 'r', Str: 'x', I32: 7, Bool: true, Dbl: 1.5,
	I64: '9007199254740993', 'I64@odata.type': 'Edm.Int64',
	When: '2014-08-22T00:50:44.1234567Z', 'When@odata.type': 'Edm.DateTime',
	Id: '68260b3f-beab-45e2-b900-33e2b442e724', 'Id@odata.type': 'Edm.Guid',
	Bin: 'AAEC', 'Bin@odata.type': 'Edm.Binary',
};

async function fixture(ctx) {
	const tc = await ctx.newTable();
	const r = await ctx.raw.request({ method: 'POST', path: tc.tableName, body: BODY });
	eq(r.status, 201, `fixture insert (${r.code ?? ''})`);
	return tc.tableName;
}

function checkValues(e, what) {
	eq(e.PartitionKey, 'p', `${what}: PartitionKey`);
	eq(e.RowKey, 'r', `${what}: RowKey`);
	eq(e.Str, 'x', `${what}: Str`);
	eq(e.I32, 7, `${what}: I32`);
	eq(e.I64, '9007199254740993', `${what}: I64 (a string)`);
	eq(e.Bin, 'AAEC', `${what}: Bin`);
	ok(typeof e.Timestamp === 'string', `${what}: Timestamp`);
}

function checkNone(e, what) {
	checkValues(e, what);
	const meta = Object.keys(e).filter((k) => k.startsWith('odata.') || k.includes('@odata.'));
	eq(meta.join(','), '', `${what}: odata members and annotations`);
}

function checkMinimal(e, what, { top = false } = {}) {
	checkValues(e, what);
	ok(typeof e['odata.etag'] === 'string', `${what}: odata.etag`);
	eq(e['I64@odata.type'], 'Edm.Int64', `${what}: I64@odata.type`);
	eq(e['When@odata.type'], 'Edm.DateTime', `${what}: When@odata.type`);
	eq(e['Id@odata.type'], 'Edm.Guid', `${what}: Id@odata.type`);
	eq(e['Bin@odata.type'], 'Edm.Binary', `${what}: Bin@odata.type`);
	eq(e['Timestamp@odata.type'], undefined, `${what}: Timestamp is not annotated in minimal metadata`);
	for (const k of ['Str', 'I32', 'Bool']) eq(e[`${k}@odata.type`], undefined, `${what}: ${k} needs no annotation`);
	for (const k of ['odata.type', 'odata.id', 'odata.editLink']) eq(e[k], undefined, `${what}: ${k} only in full metadata`);
	if (top) ok(typeof e['odata.metadata'] === 'string', `${what}: odata.metadata`);
}

function checkFull(e, what, { top = false } = {}) {
	checkValues(e, what);
	ok(typeof e['odata.etag'] === 'string', `${what}: odata.etag`);
	ok(typeof e['odata.type'] === 'string' && e['odata.type'].length > 0, `${what}: odata.type`);
	const dec = (v) => (typeof v === 'string' ? decodeURIComponent(v) : '');
	ok(dec(e['odata.id']).includes("PartitionKey='p'"), `${what}: odata.id names the entity (${e['odata.id']})`);
	ok(dec(e['odata.editLink']).includes("RowKey='r'"), `${what}: odata.editLink names the entity (${e['odata.editLink']})`);
	eq(e['Timestamp@odata.type'], 'Edm.DateTime', `${what}: Timestamp@odata.type`);
	eq(e['I64@odata.type'], 'Edm.Int64', `${what}: I64@odata.type`);
	eq(e['When@odata.type'], 'Edm.DateTime', `${what}: When@odata.type`);
	eq(e['Id@odata.type'], 'Edm.Guid', `${what}: Id@odata.type`);
	eq(e['Bin@odata.type'], 'Edm.Binary', `${what}: Bin@odata.type`);
	if (top) ok(typeof e['odata.metadata'] === 'string', `${what}: odata.metadata`);
}

const LEVELS = { nometadata: [NOMETA, checkNone], minimalmetadata: [MINIMAL, checkMinimal], fullmetadata: [FULL, checkFull] };

for (const [level, [accept, check]] of Object.entries(LEVELS)) {
	test(`raw.metadata-${level}-accept`, `Accept: ${accept} on a point read and a query`,
		`${PF}: JSON formats nometadata / minimalmetadata / fullmetadata`, async (ctx) => {
			const t = await fixture(ctx);
			const one = await ctx.raw.request({ path: entityPath(t, 'p', 'r'), headers: { Accept: accept } });
			eq(one.status, 200, 'point read status');
			ok((one.headers['content-type'] ?? '').includes(`odata=${level}`), `point read Content-Type (${one.headers['content-type']})`);
			check(one.json ?? {}, 'point read', { top: true });
			const q = await ctx.raw.request({ path: `${t}()`, headers: { Accept: accept } });
			eq(q.status, 200, 'query status');
			ok((q.headers['content-type'] ?? '').includes(`odata=${level}`), `query Content-Type (${q.headers['content-type']})`);
			check(q.json?.value?.[0] ?? {}, 'query entity');
			if (level === 'nometadata') eq(q.json?.['odata.metadata'], undefined, 'query: no odata.metadata');
			else ok(typeof q.json?.['odata.metadata'] === 'string', 'query: odata.metadata');
		});

	test(`raw.metadata-${level}-format`, `$format=${accept} overrides Accept`,
		`${PF}: the $format URI parameter overrides the Accept header (data service version 3.0)`, async (ctx) => {
			const t = await fixture(ctx);
			const other = level === 'fullmetadata' ? NOMETA : FULL;
			const q = await ctx.raw.request({ path: `${t}()`, query: `$format=${encodeURIComponent(accept)}`, headers: { Accept: other } });
			eq(q.status, 200, `status (${q.code ?? ''})`);
			check(q.json?.value?.[0] ?? {}, 'query entity');
			const one = await ctx.raw.request({ path: entityPath(t, 'p', 'r'), query: `$format=${encodeURIComponent(accept)}`, headers: { Accept: other } });
			eq(one.status, 200, 'point read status');
			check(one.json ?? {}, 'point read', { top: true });
		});
}

test('raw.metadata-default', 'Accept: application/json answers minimal metadata',
	`${PF}: minimalmetadata is the default JSON format`, async (ctx) => {
		const t = await fixture(ctx);
		const q = await ctx.raw.request({ path: `${t}()`, headers: { Accept: 'application/json' } });
		eq(q.status, 200, 'status');
		checkMinimal(q.json?.value?.[0] ?? {}, 'query entity');
	});

test('raw.metadata-insert-echo', 'the entity echoed by an insert follows the Accept level',
	`${PF}; doc: Insert Entity (the response body is the inserted entity)`, async (ctx) => {
		const tc = await ctx.newTable();
		const r = await ctx.raw.request({ method: 'POST', path: tc.tableName, headers: { Accept: FULL }, body: BODY });
		eq(r.status, 201, 'status');
		checkFull(r.json ?? {}, 'echo', { top: true });
	});

test('raw.metadata-tables-full', 'Query Tables in full metadata carries odata.type, odata.id and odata.editLink',
	`${PF}; doc: Query Tables (JSON response)`, async (ctx) => {
		const t = await fixture(ctx);
		const r = await ctx.raw.request({ path: 'Tables', query: `$filter=${encodeURIComponent(`TableName eq '${t}'`)}`, headers: { Accept: FULL } });
		eq(r.status, 200, 'status');
		const e = r.json?.value?.[0] ?? {};
		eq(e.TableName, t, 'TableName');
		for (const k of ['odata.type', 'odata.id', 'odata.editLink']) ok(typeof e[k] === 'string', k);
		const n = await ctx.raw.request({ path: 'Tables', query: `$filter=${encodeURIComponent(`TableName eq '${t}'`)}`, headers: { Accept: NOMETA } });
		eq(Object.keys(n.json?.value?.[0] ?? {}).join(','), 'TableName', 'nometadata: only TableName');
	});

test('raw.whole-double-typed', 'a whole-number Double is written back so that it reads as a Double: 5.0, or annotated Edm.Double',
	'contract §1: a whole-number Double is written back so that its type survives (written `5.0`; the README adds the annotation); docs annotate only Int64, DateTime, Guid, Binary', async (ctx) => {
		const tc = await ctx.newTable();
		const r = await ctx.raw.request({ method: 'POST', path: tc.tableName, body: { PartitionKey: 'p', RowKey: 'r', D: 5, 'D@odata.type': 'Edm.Double' } });
		eq(r.status, 201, 'insert');
		for (const [level, accept] of [['minimal', MINIMAL], ['full', FULL]]) {
			const g = await ctx.raw.request({ path: entityPath(tc.tableName, 'p', 'r'), headers: { Accept: accept } });
			eq(g.json?.D, 5, `${level}: D value`);
			const lit = /"D":(-?[0-9][0-9.eE+-]*)/.exec(g.text)?.[1];
			const ann = g.json?.['D@odata.type'];
			ok(ann === 'Edm.Double' || (ann === undefined && /[.eE]/.test(lit ?? '')), `${level}: D travels as a Double (literal ${lit}, annotation ${ann})`);
			if (level === 'full') ok(ann === undefined || ann === 'Edm.Double', `full: annotation ${ann}`);
		}
	});

test('raw.atom-refused', 'Atom is refused with 415 AtomFormatNotSupported',
	`${PF}: JSON must be used with version 2015-12-11 and later; contract §12 (415 AtomFormatNotSupported)`, async (ctx) => {
		const t = await fixture(ctx);
		const q = await ctx.raw.request({ path: `${t}()`, headers: { Accept: 'application/atom+xml' } });
		eq(q.status, 415, 'query with Accept: application/atom+xml');
		eq(q.code, 'AtomFormatNotSupported', 'query error code');
		const body = '<?xml version="1.0" encoding="utf-8"?><entry xmlns="http://www.w3.org/2005/Atom"><content type="application/xml"></content></entry>';
		const ins = await ctx.raw.request({ method: 'POST', path: t, headers: { 'Content-Type': 'application/atom+xml', Accept: 'application/atom+xml' }, body });
		eq(ins.status, 415, 'insert with an Atom body');
		eq(ins.code, 'AtomFormatNotSupported', 'insert error code');
	});
