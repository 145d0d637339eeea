// cases/queries.mjs - Query Entities through TableClient.listEntities: $filter over every type
// (with the odata tagged template), and/or/not, the typed comparison rules of contract §5, $select,
// $top page sizes, key order.
import { odata } from '@azure/data-tables';
import { deepEq, eq, ok, rejects, test } from '../lib/harness.mjs';

const QE = 'doc: Querying tables and entities (constructing filter strings)';
const G1 = '68260b3f-beab-45e2-b900-33e2b442e724';
const G2 = '00000000-0000-0000-0000-000000000001';

// The fixture (contract §10 extended with typed properties). Sales/00011 holds Age as a String.
const FIXTURE = [
	{ partitionKey: 'Marketing', rowKey: '00001', FirstName: 'Don', LastName: 'Hall', Age: 34, Email: 'donh@contoso.com',
		Big: { value: '9007199254740993', type: 'Int64' }, Score: 1.5, Active: true,
		Joined: { value: '2014-08-22T00:50:44.1234567Z', type: 'DateTime' }, Id: { value: G1, type: 'Guid' }, Bin: Uint8Array.of(0x0a, 0xff) },
	{ partitionKey: 'Marketing', rowKey: '00002', FirstName: 'Jun', LastName: 'Cao', Age: 47, Email: 'junc@contoso.com',
		Big: { value: '5', type: 'Int64' }, Score: { value: 2, type: 'Double' }, Active: false,
		Joined: { value: '2015-01-01T00:00:00Z', type: 'DateTime' }, Id: { value: G2, type: 'Guid' }, Bin: Uint8Array.of(0x01) },
	{ partitionKey: 'Marketing', rowKey: 'Department', DepartmentName: 'Marketing', EmployeeCount: 153 },
	{ partitionKey: 'Sales', rowKey: '00010', FirstName: 'Ken', LastName: 'Kwok', Age: 23, Email: 'kenk@contoso.com',
		Big: { value: '-1', type: 'Int64' }, Score: 12.5, Active: true,
		Joined: { value: '2010-01-01T00:00:00Z', type: 'DateTime' }, Id: { value: G1, type: 'Guid' }, Bin: Uint8Array.of(0xff) },
	{ partitionKey: 'Sales', rowKey: '00011', FirstName: 'Pat', LastName: "O'Brien", Age: '40' },
];

async function fixture(ctx) {
	const tc = await ctx.newTable();
	await ctx.load(tc, FIXTURE);
	return tc;
}

const key = (e) => `${e.partitionKey}/${e.rowKey}`;

async function keys(ctx, tc, filter, extra = {}) {
	return (await ctx.all(tc, { queryOptions: { filter, ...extra } })).map(key);
}

// one table, many filters: [filter, expected keys in order]
function filterCase(id, title, basis, pairs) {
	test(id, title, basis, async (ctx) => {
		const tc = await fixture(ctx);
		for (const [filter, want] of pairs) deepEq(await keys(ctx, tc, filter), want, `$filter=${filter}`);
	});
}

filterCase('query.filter-keys', 'point, range and prefix queries on PartitionKey and RowKey', `${QE}; contract §10`, [
	["(PartitionKey eq 'Sales') and (RowKey eq '00010')", ['Sales/00010']],
	["PartitionKey eq 'Marketing' and RowKey ge '0' and RowKey lt '1'", ['Marketing/00001', 'Marketing/00002']],
	["((PartitionKey eq 'Marketing') and (RowKey ge 'D')) and (RowKey lt 'E')", ['Marketing/Department']],
	["PartitionKey eq 'Sales' and (RowKey eq '00011' or RowKey eq '00010')", ['Sales/00010', 'Sales/00011']],
	["PartitionKey ne 'Marketing'", ['Sales/00010', 'Sales/00011']],
	["RowKey gt '00001' and RowKey lt 'Z'", ['Marketing/00002', 'Marketing/Department', 'Sales/00010', 'Sales/00011']],
]);

filterCase('query.filter-empty-range', 'an inverted key range is an empty result, not an error', 'contract §5 and §10', [
	["(PartitionKey eq 'Sales') and (RowKey ge 'empid_000123') and (RowKey lt '000123_2012')", []],
	["PartitionKey eq 'Nobody'", []],
]);

filterCase('query.filter-string', 'String comparisons are ordinal, with doubled quotes', `${QE}: string literals in single quotes, a quote doubled`, [
	[odata`LastName eq ${"O'Brien"}`, ['Sales/00011']],
	["LastName eq 'O''Brien'", ['Sales/00011']],
	["FirstName ge 'J' and FirstName lt 'L'", ['Marketing/00002', 'Sales/00010']],
	["Email gt 'junc'", ['Marketing/00002', 'Sales/00010']],
	["LastName eq 'hall'", []],
]);

filterCase('query.filter-int32', 'Int32 comparisons', `${QE}: integer literals`, [
	['Age gt 30 and Age lt 40', ['Marketing/00001']],
	['Age ge 47', ['Marketing/00002']],
	['Age eq 23', ['Sales/00010']],
	['EmployeeCount eq 153', ['Marketing/Department']],
	['Age eq -1', []],
]);

filterCase('query.filter-int64', 'Int64 comparisons with the L suffix, exact beyond 2^53', `${QE}: Int64 literals carry the L suffix; contract §5`, [
	['Big eq 9007199254740993L', ['Marketing/00001']],
	['Big gt 9007199254740992L', ['Marketing/00001']],
	['Big lt 0L', ['Sales/00010']],
	['Big ge 5L and Big le 5L', ['Marketing/00002']],
]);

filterCase('query.filter-int32-literal-on-int64', 'an Int32 literal compares numerically with an Int64 property',
	'contract §5: a literal that widens losslessly to the property\'s type compares as a number (docs silent)', [
		['Big gt 4', ['Marketing/00001', 'Marketing/00002']],
		['Big eq 5', ['Marketing/00002']],
		['Big lt 0', ['Sales/00010']],
	]);

filterCase('query.filter-double', 'Double comparisons, and Int32 literals against Doubles', `${QE}; contract §5 (Int32 widens to Double)`, [
	['Score ge 2.0', ['Marketing/00002', 'Sales/00010']],
	['Score eq 1.5', ['Marketing/00001']],
	['Score gt 2', ['Sales/00010']],
	['Score eq 2', ['Marketing/00002']],
	['Score lt 1.25e1', ['Marketing/00001', 'Marketing/00002']],
]);

filterCase('query.filter-boolean', 'Boolean comparisons (false < true)', `${QE}: true / false; contract §5`, [
	['Active eq true', ['Marketing/00001', 'Sales/00010']],
	['Active eq false', ['Marketing/00002']],
	['Active ne true', ['Marketing/00002']],
	['Active lt true', ['Marketing/00002']],
]);

filterCase('query.filter-datetime', 'DateTime comparisons at 100 ns', `${QE}: datetime'…' literals; contract §5 (100 ns)`, [
	["Joined eq datetime'2014-08-22T00:50:44.1234567Z'", ['Marketing/00001']],
	["Joined gt datetime'2014-08-22T00:50:44.1234567Z'", ['Marketing/00002']],
	["Joined lt datetime'2014-08-22T00:50:44.1234568Z' and Joined gt datetime'2014-08-22T00:50:44.1234566Z'", ['Marketing/00001']],
	["Joined lt datetime'2012-01-01T00:00:00Z'", ['Sales/00010']],
	[odata`Joined ge ${new Date('2015-01-01T00:00:00Z')}`, ['Marketing/00002']],
]);

filterCase('query.filter-guid', 'Guid comparisons', `${QE}: guid'…' literals`, [
	[`Id eq guid'${G1}'`, ['Marketing/00001', 'Sales/00010']],
	[`Id ne guid'${G1}'`, ['Marketing/00002']],
]);

filterCase('query.filter-binary', "Binary comparisons with X'…' and binary'…'", `${QE}: binary literals; contract §5`, [
	["Bin eq X'0aff'", ['Marketing/00001']],
	["Bin eq binary'0aff'", ['Marketing/00001']],
	["Bin eq X'ff'", ['Sales/00010']],
]);

filterCase('query.filter-logic', 'and / or / not with parentheses and precedence', `${QE}: and, or, not; contract §5 (not > comparison > and > or)`, [
	["(Age lt 30 or Age gt 40) and PartitionKey eq 'Marketing'", ['Marketing/00002']],
	["PartitionKey eq 'Sales' or RowKey eq '00001' and PartitionKey eq 'Nobody'", ['Sales/00010', 'Sales/00011']],
	["not (PartitionKey eq 'Marketing')", ['Sales/00010', 'Sales/00011']],
	["PartitionKey eq 'Marketing' and not (RowKey eq 'Department')", ['Marketing/00001', 'Marketing/00002']],
	["((((FirstName eq 'Don'))))", ['Marketing/00001']],
]);

filterCase('query.filter-absent-property', 'a comparison on a property the entity lacks is false whatever the operator; not is two-valued',
	'contract §5: comparison on an absent property is false; logic is two-valued (docs silent)', [
		['Nope eq 1', []],
		['Nope ne 1', []],
		["Nope lt 'z'", []],
		["PartitionKey eq 'Marketing' and not (Age lt 40)", ['Marketing/00002', 'Marketing/Department']],
		["PartitionKey eq 'Marketing' and DepartmentName ne 'x'", ['Marketing/Department']],
	]);

filterCase('query.filter-type-mismatch', 'a literal of another type decides by the mismatch alone: eq false, ne true, lt true, le true, gt false, ge false',
	'contract §5: typed comparison semantics (docs silent)', [
		// Sales/00011 has Age as the String '40'; an Int32 literal does not widen to a String
		["PartitionKey eq 'Sales' and RowKey eq '00011' and Age eq 40", []],
		["PartitionKey eq 'Sales' and RowKey eq '00011' and Age ne 40", ['Sales/00011']],
		["PartitionKey eq 'Sales' and RowKey eq '00011' and Age lt 40", ['Sales/00011']],
		["PartitionKey eq 'Sales' and RowKey eq '00011' and Age le 40", ['Sales/00011']],
		["PartitionKey eq 'Sales' and RowKey eq '00011' and Age gt 40", []],
		["PartitionKey eq 'Sales' and RowKey eq '00011' and Age ge 40", []],
		// a String literal against Int32 values
		["PartitionKey eq 'Marketing' and Age eq '34'", []],
		["PartitionKey eq 'Marketing' and Age lt '34'", ['Marketing/00001', 'Marketing/00002']],
		["PartitionKey eq 'Marketing' and Age ge '34'", []],
		// an Int64 literal does not narrow to Int32
		['Age eq 34L', []],
		['Age ne 34L', ['Marketing/00001', 'Marketing/00002', 'Sales/00010', 'Sales/00011']],
	]);

filterCase('query.filter-timestamp', 'Timestamp is filterable like any DateTime', `${QE}: Timestamp may be filtered`, [
	["Timestamp lt datetime'2000-01-01T00:00:00Z'", []],
	[`Timestamp ge datetime'${new Date(Date.now() - 3600_000).toISOString()}' and PartitionKey eq 'Sales'`, ['Sales/00010', 'Sales/00011']],
]);

test('query.filter-int32-literal-range', 'an unsuffixed integer literal outside Int32 is 400 InvalidInput',
	"contract §5: `ts eq 1498179600055` is an error on the service (\"Unrecognized 'Edm.Int32' literal\"); Int64 literals need L", async (ctx) => {
		const tc = await fixture(ctx);
		await rejects(ctx.all(tc, { queryOptions: { filter: 'Big eq 9007199254740993' } }), { status: 400, code: 'InvalidInput' }, 'Big eq 9007199254740993');
	});

test('query.filter-malformed', 'malformed filters are 400 InvalidInput, never an empty result',
	'contract §5 and §10: unquoted values, `und`, unbalanced parentheses, unknown operators are errors', async (ctx) => {
		const tc = await fixture(ctx);
		for (const f of ['PartitionKey eq Sales', "(PartitionKey eq 'Sales') und (RowKey eq 'x')", "(PartitionKey eq 'Sales'", "PartitionKey xx 'Sales'", "PartitionKey eq 'Sales' and"]) {
			await rejects(ctx.all(tc, { queryOptions: { filter: f } }), { status: 400, code: 'InvalidInput' }, `$filter=${f}`);
		}
	});

test('query.filter-15-comparisons', 'a filter of 15 comparisons runs; 16 are 400 InvalidInput',
	`${QE}: no more than 15 discrete comparisons are permitted within a $filter string; contract §2`, async (ctx) => {
		const tc = await fixture(ctx);
		const cmp = (n) => Array.from({ length: n }, (_, i) => `RowKey ne 'x${i}'`).join(' and ');
		eq((await keys(ctx, tc, `PartitionKey eq 'Sales' and ${cmp(14)}`)).length, 2, '15 comparisons: entities');
		await rejects(ctx.all(tc, { queryOptions: { filter: `PartitionKey eq 'Sales' and ${cmp(15)}` } }), { status: 400, code: 'InvalidInput' }, '16 comparisons');
	});

test('query.order', 'a table scan returns entities sorted by PartitionKey, then RowKey',
	'doc: Querying tables and entities: query results are sorted by PartitionKey, then by RowKey', async (ctx) => {
		const tc = await fixture(ctx);
		deepEq((await ctx.all(tc)).map(key), ['Marketing/00001', 'Marketing/00002', 'Marketing/Department', 'Sales/00010', 'Sales/00011'], 'order');
	});

test('query.select', 'select returns only the listed properties (and the ETag)',
	'doc: Query Entities: $select; contract §5 (keys and Timestamp only when selected; a missing property is null)', async (ctx) => {
		const tc = await fixture(ctx);
		const got = await ctx.all(tc, { queryOptions: { filter: "PartitionKey eq 'Marketing'", select: ['FirstName', 'Age'] } });
		eq(got.length, 3, 'entities');
		for (const e of got) {
			const extra = Object.keys(e).filter((k) => !['FirstName', 'Age', 'etag', 'partitionKey', 'rowKey', 'timestamp'].includes(k));
			deepEq(extra, [], 'properties beyond the selection');
			ok(typeof e.etag === 'string' && e.etag, 'the ETag is returned');
		}
		deepEq(got.map((e) => e.FirstName ?? null), ['Don', 'Jun', null], 'FirstName values');
		deepEq(got.map((e) => e.Age ?? null), [34, 47, null], 'Age values');
	});

test('query.select-with-keys', 'select may name PartitionKey, RowKey and Timestamp',
	'doc: Query Entities: $select of system properties; contract §5', async (ctx) => {
		const tc = await fixture(ctx);
		const got = await ctx.all(tc, { queryOptions: { filter: "PartitionKey eq 'Sales'", select: ['RowKey', 'Timestamp', 'LastName'] } });
		deepEq(got.map((e) => [e.rowKey, e.LastName]), [['00010', 'Kwok'], ['00011', "O'Brien"]], 'RowKey and LastName');
		ok(got.every((e) => typeof e.timestamp === 'string'), 'Timestamp returned');
	});

test('query.top-pages', 'byPage({maxPageSize}) yields pages of exactly $top until the last',
	'doc: Query Entities: $top returns at most n entities per page (the service may cut a page short at a partition boundary or after 5 s; within one partition of 25 entities it need not); contract §5', async (ctx) => {
		const tc = await ctx.newTable();
		await ctx.load(tc, Array.from({ length: 25 }, (_, i) => ({ partitionKey: 'p', rowKey: String(i).padStart(3, '0') })));
		const sizes = [];
		const seen = [];
		for await (const page of tc.listEntities().byPage({ maxPageSize: 10 })) {
			sizes.push(page.length);
			seen.push(...page.map((e) => e.rowKey));
		}
		deepEq(sizes, [10, 10, 5], 'page sizes');
		deepEq(seen, Array.from({ length: 25 }, (_, i) => String(i).padStart(3, '0')), 'entities in order');
	});

test('query.top-filtered', 'top with a filter returns the first n matches in key order',
	'doc: Query Entities: $top; contract §3 ($top n stops after n)', async (ctx) => {
		const tc = await ctx.newTable();
		await ctx.load(tc, Array.from({ length: 30 }, (_, i) => ({ partitionKey: 'p', rowKey: String(i).padStart(3, '0'), odd: i % 2 === 1 })));
		const it = tc.listEntities({ queryOptions: { filter: 'odd eq true' } }).byPage({ maxPageSize: 4 });
		const first = (await it.next()).value;
		deepEq(first.map((e) => e.rowKey), ['001', '003', '005', '007'], 'first page');
		ok(first.continuationToken, 'a continuation follows');
	});
