// cases/tables.mjs - Create Table, Query Tables (filter, paging), Delete Table, table names, and
// entity operations on a table that does not exist; through TableServiceClient / TableClient.
import { odata } from '@azure/data-tables';
import { deepEq, eq, errInfo, fail, ok, rejects, test } from '../lib/harness.mjs';

const DM = 'doc: Understanding the Table service data model';

async function listNames(svc, filter) {
	const names = [];
	for await (const t of svc.listTables({ queryOptions: { filter } })) names.push(t.name);
	return names;
}

// The SDK's createTable treats 409 TableAlreadyExists as success and deleteTable treats 404 as
// success; onResponse still shows what the endpoint answered.
async function createTableAnswer(svc, name) {
	let status;
	let code;
	try {
		await svc.createTable(name, {
			onResponse: (res) => {
				status = res.status;
				code = res.parsedBody?.odataError?.code ?? res.headers?.get('x-ms-error-code');
			},
		});
	} catch (e) {
		const info = errInfo(e);
		return { status: info.status, code: info.code, threw: true };
	}
	return { status, code, threw: false };
}

test('tables.create-list-delete', 'a created table is listed by name, and gone after Delete Table',
	'doc: Create Table (201), Query Tables, Delete Table (204)', async (ctx) => {
		const name = ctx.tableName();
		const created = await createTableAnswer(ctx.svc, name);
		eq(created.status, 201, 'Create Table status');
		deepEq(await listNames(ctx.svc, odata`TableName eq ${name}`), [name], 'Query Tables with TableName eq');
		let delStatus;
		await ctx.svc.deleteTable(name, { onResponse: (r) => { delStatus = r.status; } });
		eq(delStatus, 204, 'Delete Table status');
		deepEq(await listNames(ctx.svc, odata`TableName eq ${name}`), [], 'Query Tables after the delete');
	});

test('tables.create-conflict', 'creating an existing table is 409 TableAlreadyExists',
	'doc: Table Storage error codes: TableAlreadyExists 409', async (ctx) => {
		const name = ctx.tableName();
		await ctx.svc.createTable(name);
		const again = await createTableAnswer(ctx.svc, name);
		eq(again.status, 409, 'second Create Table status');
		eq(again.code, 'TableAlreadyExists', 'second Create Table error code');
	});

test('tables.create-conflict-ignoring-case', 'table names are unique ignoring case (409 TableAlreadyExists)',
	`${DM}: table names are case-insensitive and unique within an account`, async (ctx) => {
		const name = ctx.tableName('Mixed');
		await ctx.svc.createTable(name);
		const other = name.toLowerCase();
		ctx.track(other);
		const again = await createTableAnswer(ctx.svc, other);
		eq(again.status, 409, `Create Table ${other} after ${name}: status`);
		eq(again.code, 'TableAlreadyExists', 'error code');
	});

test('tables.case-preserved', 'a table keeps the case it was created with and is usable in any case',
	`${DM}: table names preserve the case with which they were created, but are case-insensitive when used`, async (ctx) => {
		const name = ctx.tableName('MiXeD');
		await ctx.svc.createTable(name);
		const listed = await listNames(ctx.svc, odata`TableName eq ${name}`);
		deepEq(listed, [name], 'Query Tables shows the name as created');
		const lower = ctx.client(name.toLowerCase());
		await lower.createEntity({ partitionKey: 'p', rowKey: 'r', v: 1 });
		const back = await ctx.client(name.toUpperCase()).getEntity('p', 'r');
		eq(back.v, 1, 'entity written through the lower-case name, read through the upper-case name');
	});

test('tables.delete-missing', 'Delete Table of a missing table is 404 ResourceNotFound',
	'contract §7: deleting a table that does not exist is ResourceNotFound (the live service\'s answer; the Delete Table page names no code)', async (ctx) => {
		const name = ctx.tableName();
		const res = await ctx.raw.request({ method: 'DELETE', path: `Tables('${name}')` });
		eq(res.status, 404, 'status');
		eq(res.code, 'ResourceNotFound', 'error code');
	});

test('tables.invalid-names', 'invalid table names are 400 InvalidResourceName (OutOfRangeInput also accepted for a bad length)',
	`${DM}: ^[A-Za-z][A-Za-z0-9]{2,62}$; contract §2 InvalidResourceName. The docs name no code; the common REST codes pair "resource name length not within the permissible limits" with OutOfRangeInput, so a length violation may carry that code`, async (ctx) => {
		const badLength = ['ab', 'a' + 'b'.repeat(63)];
		const badChars = ['1abc', 'ab-cd', 'ab_cd', 'abc def', 'äbcd'];
		const wrong = [];
		for (const name of [...badLength, ...badChars]) {
			ctx.track(name);
			const r = await createTableAnswer(ctx.svc, name);
			const codes = badLength.includes(name) ? ['InvalidResourceName', 'OutOfRangeInput'] : ['InvalidResourceName'];
			if (r.status !== 400 || !codes.includes(r.code)) wrong.push(`${JSON.stringify(name)} → ${r.status} code ${JSON.stringify(r.code ?? null)}`);
		}
		if (wrong.length) fail(`expected 400 InvalidResourceName for: ${wrong.join('; ')}`);
	});

test('tables.name-bounds', 'table names of 3 and of 63 characters are accepted',
	`${DM}: table names must be from 3 to 63 characters long`, async (ctx) => {
		const long = ctx.tableName('L');
		const name63 = (long + 'x'.repeat(63)).slice(0, 63);
		ctx.track(name63);
		const r63 = await createTableAnswer(ctx.svc, name63);
		eq(r63.status, 201, '63-character name: status');
		const letters = 'abcdefghijklmnopqrstuvwxyz';
		for (let attempt = 0; attempt < 5; attempt++) {
			const name3 = 'q' + letters[Math.floor(Math.random() * 26)] + letters[Math.floor(Math.random() * 26)];
			ctx.track(name3);
			const r3 = await createTableAnswer(ctx.svc, name3);
			if (r3.status === 409) continue; // another run holds it
			eq(r3.status, 201, '3-character name: status');
			return;
		}
		fail('every 3-character name tried was taken');
	});

test('tables.reserved-name', 'the reserved table name "tables" is refused with InvalidResourceName',
	`${DM}: some names are reserved, including "tables" (the page says "error code 404 (Bad Request)", so 400 or 404 is accepted); contract §2 InvalidResourceName`, async (ctx) => {
		const r = await createTableAnswer(ctx.svc, 'tables');
		if (r.status === 201) {
			await ctx.svc.deleteTable('tables');
			fail('the table "tables" was created');
		}
		ok([400, 404].includes(r.status), `status: expected 400 (or 404 as the page says), got ${r.status}`);
		eq(r.code, 'InvalidResourceName', 'error code');
	});

test('tables.list-filter', 'Query Tables with a range $filter returns exactly the matching tables, in name order',
	'doc: Query Tables: $filter over TableName; doc: Querying tables and entities', async (ctx) => {
		const prefix = ctx.tableName('F');
		const names = ['c', 'a', 'b'].map((s) => prefix + s);
		for (const n of names) {
			ctx.track(n);
			await ctx.svc.createTable(n);
		}
		const listed = await listNames(ctx.svc, odata`TableName ge ${prefix} and TableName lt ${prefix + '{'}`);
		deepEq(listed, [...names].sort(), 'tables listed');
	});

test('tables.list-paging', 'Query Tables pages with $top and resumes from NextTableName in a new iterator',
	'doc: Query Tables / Query timeout and pagination: x-ms-continuation-NextTableName', async (ctx) => {
		const prefix = ctx.tableName('P');
		const names = ['a', 'b', 'c', 'd', 'e'].map((s) => prefix + s);
		for (const n of names) {
			ctx.track(n);
			await ctx.svc.createTable(n);
		}
		const filter = odata`TableName ge ${prefix} and TableName lt ${prefix + '{'}`;
		const it = ctx.svc.listTables({ queryOptions: { filter } }).byPage({ maxPageSize: 2 });
		const first = (await it.next()).value;
		deepEq(first.map((t) => t.name), names.slice(0, 2), 'first page of 2');
		ok(first.continuationToken, 'the first page carries a continuation (NextTableName)');
		const rest = [];
		const sizes = [];
		for await (const page of ctx.svc.listTables({ queryOptions: { filter } }).byPage({ maxPageSize: 2, continuationToken: first.continuationToken })) {
			sizes.push(page.length);
			rest.push(...page.map((t) => t.name));
		}
		deepEq(rest, names.slice(2), 'tables after resuming from the continuation');
		ok(sizes.every((n) => n <= 2), `pages hold at most $top tables (got ${sizes})`);
	});

test('tables.missing.insert', 'Insert Entity into a missing table is 404 TableNotFound',
	'doc: Table Storage error codes: TableNotFound 404 "The table specified does not exist"; contract §7', async (ctx) => {
		const tc = ctx.client(ctx.tableName());
		await rejects(tc.createEntity({ partitionKey: 'p', rowKey: 'r' }), { status: 404, code: 'TableNotFound' }, 'createEntity');
	});

test('tables.missing.upsert', 'Insert Or Replace into a missing table is 404 TableNotFound',
	'doc: Table Storage error codes: TableNotFound 404; contract §7', async (ctx) => {
		const tc = ctx.client(ctx.tableName());
		await rejects(tc.upsertEntity({ partitionKey: 'p', rowKey: 'r' }, 'Replace'), { status: 404, code: 'TableNotFound' }, 'upsertEntity');
	});

test('tables.missing.query', 'Query Entities on a missing table is 404 TableNotFound',
	'doc: Table Storage error codes: TableNotFound 404; contract §7', async (ctx) => {
		const tc = ctx.client(ctx.tableName());
		await rejects(ctx.all(tc), { status: 404, code: 'TableNotFound' }, 'listEntities');
	});

test('tables.missing.get', 'a point read on a missing table is 404 TableNotFound',
	'contract §7: an entity operation on a missing table is TableNotFound (docs name no code for this case)', async (ctx) => {
		const tc = ctx.client(ctx.tableName());
		await rejects(tc.getEntity('p', 'r'), { status: 404, code: 'TableNotFound' }, 'getEntity');
	});

test('tables.missing.batch', 'a batch on a missing table is 404 TableNotFound',
	'contract §7: a batch on a missing table is TableNotFound', async (ctx) => {
		const tc = ctx.client(ctx.tableName());
		await rejects(tc.submitTransaction([['create', { partitionKey: 'p', rowKey: 'r' }]]), { status: 404, code: 'TableNotFound' }, 'submitTransaction');
	});

test('tables.delete-removes-entities', 'a deleted table is inaccessible, and a table re-created with its name is empty',
	'doc: Delete Table: the table and the data it contains are deleted (re-creation may briefly be 409 TableBeingDeleted)', async (ctx) => {
		const name = ctx.tableName();
		await ctx.svc.createTable(name);
		const tc = ctx.client(name);
		await tc.createEntity({ partitionKey: 'p', rowKey: 'r' });
		await ctx.svc.deleteTable(name);
		await rejects(tc.getEntity('p', 'r'), { status: 404 }, 'getEntity after Delete Table');
		const deadline = Date.now() + 10_000;
		for (;;) {
			const r = await createTableAnswer(ctx.svc, name);
			if (r.status === 201) break;
			if (r.status === 409 && r.code === 'TableBeingDeleted' && Date.now() < deadline) {
				await new Promise((res) => setTimeout(res, 500));
				continue;
			}
			fail(`re-creating the table: ${r.status} ${r.code ?? ''}`);
		}
		deepEq(await ctx.all(tc), [], 'entities of the re-created table');
	});

test('tables.sdk-wrong-key', 'a client holding a wrong account key gets 403 AuthenticationFailed',
	'doc: Common REST API error codes: AuthenticationFailed 403', async (ctx) => {
		const { AzureNamedKeyCredential, TableServiceClient } = await import('@azure/data-tables');
		const { randomBytes } = await import('node:crypto');
		const bad = new TableServiceClient(ctx.endpoint, new AzureNamedKeyCredential(ctx.account, randomBytes(64).toString('base64')), ctx.clientOptions);
		await rejects(listNames(bad, "TableName eq 'x'"), { status: 403, code: 'AuthenticationFailed' }, 'listTables with a wrong key');
	});
