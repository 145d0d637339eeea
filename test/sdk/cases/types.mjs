// cases/types.mjs - every EDM type round-trips through the SDK: String, Int32, Int64, Double
// (with NaN, ±Infinity, -0 and whole numbers), Boolean, DateTime at 100 ns, Guid, Binary; the
// type of a value survives a read-modify-merge; the same name may carry different types.
// Reads use disableTypeConversion, so the SDK reports the type the endpoint declared: an
// unannotated JSON number reads as Int32 when it is an integer, so a whole Double must come back
// annotated for its type to survive.
import { deepEq, eq, fail, ok, rejects, test } from '../lib/harness.mjs';
import { entityPath } from '../lib/http.mjs';
import { ticks } from './entities.mjs';

const E = { partitionKey: 'p', rowKey: 'r' };
const DM = 'doc: Understanding the Table service data model (property types)';

async function roundTrip(ctx, props) {
	const tc = await ctx.newTable();
	await tc.createEntity({ ...E, ...props });
	return { tc, typed: await tc.getEntity('p', 'r', { disableTypeConversion: true }), plain: await tc.getEntity('p', 'r') };
}

// {value, type} as read with disableTypeConversion, compared by type and by a value predicate
function checkTyped(got, type, valueOk, what) {
	if (!got || typeof got !== 'object') fail(`${what}: expected a ${type}, got ${JSON.stringify(got)}`);
	eq(got.type, type, `${what}: type`);
	ok(valueOk(got.value), `${what}: value ${JSON.stringify(got.value)}`);
}

test('types.string', 'String values round-trip exactly: non-ASCII, emoji, quotes, backslashes, control characters, empty',
	`${DM}: Edm.String, UTF-16, up to 64 KiB`, async (ctx) => {
		const values = {
			s1: 'plain', s2: 'Grüße, ñandú, 日本語, Ελληνικά', s3: 'emoji 😀👍🏽 and a lone astral 𝄞', s4: `quotes ' " '' and \\ backslash`,
			s5: 'line\nbreak\ttab\r', s6: '', s7: '  leading and trailing  ', s8: '{"json":"inside"}', s9: '<xml attr="1">&amp;</xml>',
		};
		const { plain, typed } = await roundTrip(ctx, values);
		for (const [k, v] of Object.entries(values)) {
			eq(plain[k], v, k);
			eq(typed[k]?.type, 'String', `${k}: type`);
		}
	});

test('types.int32', 'Int32 extremes round-trip as Int32',
	`${DM}: Edm.Int32, a 32-bit integer`, async (ctx) => {
		const values = { max: 2147483647, min: -2147483648, zero: 0, neg: -1 };
		const { plain, typed } = await roundTrip(ctx, values);
		for (const [k, v] of Object.entries(values)) {
			eq(plain[k], v, k);
			checkTyped(typed[k], 'Int32', (x) => Number(x) === v, k);
		}
	});

test('types.int32-overflow-is-double', 'an unannotated integer outside Int32 is stored as a Double',
	'contract §1: a JSON number that is not an Int32 is an Edm.Double (docs silent)', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, big: 2147483648, small: -2147483649 });
		// read raw in full metadata: the SDK would call any safe integer an Int32
		const raw = await ctx.raw.request({ path: entityPath(tc.tableName, 'p', 'r'), headers: { Accept: 'application/json;odata=fullmetadata' } });
		eq(raw.status, 200, 'raw read status');
		for (const [k, v] of [['big', 2147483648], ['small', -2147483649]]) {
			eq(Number(raw.json?.[k]), v, `${k}: value`);
			const ann = raw.json?.[`${k}@odata.type`];
			ok(ann === undefined || ann === 'Edm.Double', `${k}: annotation ${ann} (an unannotated number outside Int32 reads as a Double)`);
		}
		const hit = await ctx.all(tc, { queryOptions: { filter: 'big eq 2147483648.0' } });
		eq(hit.length, 1, 'found by a Double literal');
	});

test('types.int64', 'Int64 extremes and values beyond 2^53 round-trip exactly',
	`${DM}: Edm.Int64, a 64-bit integer; contract §1 (over 2^53 losslessly)`, async (ctx) => {
		const values = { max: '9223372036854775807', min: '-9223372036854775808', big: '9007199254740993', zero: '0', neg: '-42' };
		const props = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, type: 'Int64' }]));
		const { plain, typed } = await roundTrip(ctx, props);
		for (const [k, v] of Object.entries(values)) {
			eq(typed[k]?.type, 'Int64', `${k}: type`);
			eq(String(typed[k]?.value), v, `${k}: value`);
			eq(plain[k], BigInt(v), `${k}: as BigInt`);
		}
	});

test('types.int64-bigint', 'a JavaScript BigInt is written as Int64 and read back as the same BigInt',
	`${DM}: Edm.Int64`, async (ctx) => {
		const { plain } = await roundTrip(ctx, { b: 9223372036854775807n, c: -9223372036854775808n });
		eq(plain.b, 9223372036854775807n, 'b');
		eq(plain.c, -9223372036854775808n, 'c');
	});

test('types.int64-out-of-range', 'an Int64 outside the Int64 range is 400 InvalidInput',
	'contract §2: InvalidInput (the service\'s code, not OutOfRangeInput); docs silent', async (ctx) => {
		const tc = await ctx.newTable();
		await rejects(tc.createEntity({ ...E, x: { value: '9223372036854775808', type: 'Int64' } }), { status: 400, code: 'InvalidInput' }, 'Int64 2^63');
		await rejects(tc.createEntity({ ...E, x: { value: '-9223372036854775809', type: 'Int64' } }), { status: 400, code: 'InvalidInput' }, 'Int64 -2^63-1');
	});

// How a Double travels in the raw JSON of a point read: its annotation and its literal text. A
// whole-number Double keeps its type on the wire either with an Edm.Double annotation or by a
// literal with a decimal point or exponent (`5.0`), which JSON readers such as .NET's tell from
// an integer (contract §1 names both; a JavaScript JSON.parse cannot see the difference, so the JS
// SDK types an unannotated 5.0 as Int32 when asked with disableTypeConversion).
async function rawDouble(ctx, table, name) {
	const r = await ctx.raw.request({ path: entityPath(table, 'p', 'r') });
	eq(r.status, 200, 'raw read status');
	const esc = name.replace(/[$]/g, '\\$&');
	const lit = new RegExp(`"${esc}":(-?[0-9][0-9.eE+-]*|"[^"]*")`).exec(r.text)?.[1];
	const ann = new RegExp(`"${esc}@odata\\.type":"([^"]*)"`).exec(r.text)?.[1];
	return { lit, ann, typed: ann === 'Edm.Double' || (ann === undefined && lit !== undefined && /[.eE]/.test(lit)) };
}

test('types.double', 'finite Doubles round-trip as Double, whole numbers included',
	`${DM}: Edm.Double, a 64-bit floating point value; contract §1 (a whole-number Double keeps its type: written 5.0, or annotated)`, async (ctx) => {
		const values = { half: 1.5, tenth: 0.1, huge: 1.7976931348623157e308, tiny: 5e-324, neg: -2.5e-10, pi: Math.PI };
		const wholes = { five: 5, zero: 0, million: 1e6, negWhole: -7 };
		const props = { ...values };
		for (const [k, v] of Object.entries(wholes)) props[k] = { value: v, type: 'Double' };
		const { tc, plain, typed } = await roundTrip(ctx, props);
		for (const [k, v] of Object.entries(values)) {
			eq(Number(plain[k]), v, k);
			checkTyped(typed[k], 'Double', (x) => Number(x) === v, k);
		}
		for (const [k, v] of Object.entries(wholes)) {
			eq(Number(plain[k]), v, k);
			const d = await rawDouble(ctx, tc.tableName, k);
			ok(d.typed, `${k}: a whole Double must travel as a Double (an Edm.Double annotation or a literal like 5.0); got ${d.lit}${d.ann ? ` annotated ${d.ann}` : ' unannotated'}`);
		}
	});

test('types.double-negative-zero', 'a Double -0 keeps its sign',
	'contract §1: negative zero round-trips losslessly (docs silent)', async (ctx) => {
		const { tc } = await roundTrip(ctx, { z: { value: '-0', type: 'Double' } });
		const d = await rawDouble(ctx, tc.tableName, 'z');
		const value = d.lit?.startsWith('"') ? Number(JSON.parse(d.lit)) : Number(d.lit);
		ok(Object.is(value, -0), `z: expected -0, got ${d.lit}`);
		ok(d.typed || d.ann === 'Edm.Double', `z: travels as a Double (got ${d.lit}${d.ann ? ` annotated ${d.ann}` : ' unannotated'})`);
	});

test('types.double-nan-infinity', 'Double NaN, Infinity and -Infinity round-trip',
	'contract §1: Double NaN / Infinity / -Infinity round-trip losslessly (the data-model page lists Edm.Double without the special values)', async (ctx) => {
		const { typed } = await roundTrip(ctx, {
			nan: { value: 'NaN', type: 'Double' }, inf: { value: 'Infinity', type: 'Double' }, ninf: { value: '-Infinity', type: 'Double' },
		});
		checkTyped(typed.nan, 'Double', (x) => Number.isNaN(Number(x)), 'nan');
		checkTyped(typed.inf, 'Double', (x) => Number(x) === Infinity, 'inf');
		checkTyped(typed.ninf, 'Double', (x) => Number(x) === -Infinity, 'ninf');
	});

test('types.boolean', 'Booleans round-trip',
	`${DM}: Edm.Boolean`, async (ctx) => {
		const { plain, typed } = await roundTrip(ctx, { t: true, f: false });
		eq(plain.t, true, 't');
		eq(plain.f, false, 'f');
		checkTyped(typed.t, 'Boolean', (x) => String(x) === 'true', 't');
		checkTyped(typed.f, 'Boolean', (x) => String(x) === 'false', 'f');
	});

test('types.datetime-100ns', 'a DateTime with 7 fractional digits round-trips to the 100 ns',
	`${DM}: Edm.DateTime, UTC; contract §1 (100-ns resolution)`, async (ctx) => {
		const values = { a: '2024-01-02T03:04:05.1234567Z', b: '2024-01-02T03:04:05.0000001Z', c: '2024-01-02T03:04:05.9999999Z', d: '2024-01-02T03:04:05Z' };
		const props = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, type: 'DateTime' }]));
		const { typed } = await roundTrip(ctx, props);
		for (const [k, v] of Object.entries(values)) {
			checkTyped(typed[k], 'DateTime', (x) => typeof x === 'string' && /Z$/.test(x) && ticks(x) === ticks(v), `${k} (${v})`);
		}
	});

test('types.datetime-range', 'the DateTime extremes 1601-01-01 and 9999-12-31T23:59:59.9999999Z round-trip',
	`${DM}: Edm.DateTime values from 1601-01-01 to 9999-12-31, UTC`, async (ctx) => {
		const values = { lo: '1601-01-01T00:00:00Z', hi: '9999-12-31T23:59:59.9999999Z' };
		const props = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, type: 'DateTime' }]));
		const { typed } = await roundTrip(ctx, props);
		for (const [k, v] of Object.entries(values)) checkTyped(typed[k], 'DateTime', (x) => ticks(x) === ticks(v), `${k} (${v})`);
	});

test('types.datetime-offset-input', 'a DateTime given with an offset is stored as the same instant in UTC',
	`${DM}: Edm.DateTime is a value expressed as UTC; README decision (input ±HH:MM accepted, returned in UTC)`, async (ctx) => {
		const { typed } = await roundTrip(ctx, { t: { value: '2024-01-02T05:04:05.5+02:00', type: 'DateTime' } });
		checkTyped(typed.t, 'DateTime', (x) => /Z$/.test(x) && ticks(x) === ticks('2024-01-02T03:04:05.5Z'), 't');
	});

test('types.datetime-out-of-range', 'a DateTime before 1601-01-01 is refused with 400',
	`${DM}: DateTime range starts 1601-01-01 (the code is not documented: InvalidInput or OutOfRangeInput accepted)`, async (ctx) => {
		const tc = await ctx.newTable();
		await rejects(tc.createEntity({ ...E, t: { value: '1600-12-31T23:59:59.9999999Z', type: 'DateTime' } }), { status: 400, code: ['InvalidInput', 'OutOfRangeInput'] }, 'DateTime 1600-12-31');
	});

test('types.datetime-date-object', 'a JavaScript Date round-trips to the same millisecond',
	`${DM}: Edm.DateTime`, async (ctx) => {
		const d = new Date('2023-05-06T07:08:09.123Z');
		const { plain } = await roundTrip(ctx, { d });
		ok(plain.d instanceof Date, `read back as a Date (got ${typeof plain.d})`);
		eq(plain.d.getTime(), d.getTime(), 'milliseconds');
	});

test('types.guid', 'a Guid round-trips as Guid',
	`${DM}: Edm.Guid, a 128-bit GUID`, async (ctx) => {
		const g = '68260b3f-beab-45e2-b900-33e2b442e724';
		const { typed, plain } = await roundTrip(ctx, { g: { value: g, type: 'Guid' }, u: { value: g.toUpperCase(), type: 'Guid' } });
		checkTyped(typed.g, 'Guid', (x) => String(x).toLowerCase() === g, 'g');
		checkTyped(typed.u, 'Guid', (x) => String(x).toLowerCase() === g, 'u (given in upper case)');
		eq(plain.g?.type, 'Guid', 'the SDK reads a Guid as {value, type: "Guid"}');
	});

test('types.binary', 'Binary bytes round-trip exactly',
	`${DM}: Edm.Binary, up to 64 KiB`, async (ctx) => {
		const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
		const { plain, typed } = await roundTrip(ctx, { b: bytes, one: Uint8Array.of(0xff) });
		deepEq(plain.b, bytes, 'b');
		deepEq(plain.one, Uint8Array.of(0xff), 'one');
		eq(typed.b?.type, 'Binary', 'b: type');
	});

test('types.int32-merge-back-stays-int32', 'an Int32 read, incremented and merged back is still an Int32',
	'contract §1: an Int32 read back is an Int32, so a client that increments it writes an Int32', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.createEntity({ ...E, n: 41, other: 'x' });
		const got = await tc.getEntity('p', 'r');
		eq(typeof got.n, 'number', 'the SDK reads the Int32 as a number');
		await tc.updateEntity({ ...E, n: got.n + 1 }, 'Merge', { etag: got.etag });
		const typed = await tc.getEntity('p', 'r', { disableTypeConversion: true });
		checkTyped(typed.n, 'Int32', (x) => Number(x) === 42, 'n');
		const raw = await ctx.raw.request({ path: entityPath(tc.tableName, 'p', 'r'), headers: { Accept: 'application/json;odata=fullmetadata' } });
		eq(raw.status, 200, 'raw read status');
		eq(raw.json?.n, 42, 'raw JSON value');
		const ann = raw.json?.['n@odata.type'];
		ok(ann === undefined || ann === 'Edm.Int32', `raw JSON annotation of n: ${ann}`);
	});

test('types.same-name-different-types', 'one property name may hold different types in different entities of a partition',
	'doc: Understanding the Table service data model: no schema is enforced; contract §1', async (ctx) => {
		const tc = await ctx.newTable();
		await tc.submitTransaction([
			['create', { partitionKey: 'p', rowKey: 'a', X: 1 }],
			['create', { partitionKey: 'p', rowKey: 'b', X: 'one' }],
			['create', { partitionKey: 'p', rowKey: 'c', X: { value: '1', type: 'Int64' } }],
			['create', { partitionKey: 'p', rowKey: 'd', X: true }],
		]);
		const got = {};
		for await (const e of tc.listEntities({ disableTypeConversion: true })) got[e.rowKey] = e.X?.type;
		deepEq(got, { a: 'Int32', b: 'String', c: 'Int64', d: 'Boolean' }, 'types by RowKey');
	});

test('types.annotated-string-values', 'annotated Int32, Double and Boolean given as JSON strings are stored as their types',
	'contract §1: Int32 "12345", Double "3.14", Boolean "true"/"False" are accepted by the service (docs silent)', async (ctx) => {
		const tc = await ctx.newTable();
		const res = await ctx.raw.request({
			method: 'POST', path: tc.tableName,
			body: { PartitionKey: 'p', RowKey: 'r', I: '12345', 'I@odata.type': 'Edm.Int32', D: '3.14', 'D@odata.type': 'Edm.Double', B: 'False', 'B@odata.type': 'Edm.Boolean' },
		});
		eq(res.status, 201, `insert status (${res.code ?? ''})`);
		const typed = await tc.getEntity('p', 'r', { disableTypeConversion: true });
		checkTyped(typed.I, 'Int32', (x) => Number(x) === 12345, 'I');
		checkTyped(typed.D, 'Double', (x) => Number(x) === 3.14, 'D');
		checkTyped(typed.B, 'Boolean', (x) => String(x) === 'false', 'B');
	});

test('types.null-is-absent', 'a property given as JSON null is absent from the stored entity',
	'contract §1: a JSON null means "property absent" (docs silent)', async (ctx) => {
		const tc = await ctx.newTable();
		const res = await ctx.raw.request({ method: 'POST', path: tc.tableName, body: { PartitionKey: 'p', RowKey: 'r', Gone: null, Kept: 1 } });
		eq(res.status, 201, `insert status (${res.code ?? ''})`);
		const back = await tc.getEntity('p', 'r');
		ok(!('Gone' in back), `Gone is absent (got ${JSON.stringify(back.Gone)})`);
		eq(back.Kept, 1, 'Kept');
	});
